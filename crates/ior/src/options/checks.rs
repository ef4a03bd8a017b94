//! A test's parameters once parsed: finalization (the implied `-w -r`
//! rule) and the cross-option checks, as methods of [`IorParams`].

use super::*;

/// A refusal with message `msg`.
fn bad(msg: String) -> Result<(), OptionError> {
    Err(OptionError::Invalid(msg))
}

impl IorParams {
    /// The value recorded for `--module.key`: `None` when not given,
    /// `Some(None)` for a flag given without value.
    pub fn module_option(&self, module: &str, key: &str) -> Option<Option<&str>> {
        self.module_options
            .iter()
            .find(|(m, k, _)| m.eq_ignore_ascii_case(module) && k.eq_ignore_ascii_case(key))
            .map(|(_, _, v)| v.as_deref())
    }

    /// Applies the implied `-w -r` rule to this test's final values.
    pub fn finalize(&mut self) {
        if !(self.write_file
            || self.read_file
            || self.verification.check_write
            || self.verification.check_read)
        {
            self.write_file = true;
            self.read_file = true;
            self.implied_write_read = true;
        }
    }

    /// Cross-option rules that need no knowledge of the machine. Call after
    /// [`IorParams::finalize`]. Messages name the options involved; when
    /// several rules are broken, the first in the order below is reported.
    pub fn check(&self) -> Result<(), OptionError> {
        let features = self.api_kind.features();
        self.check_sizes(&features)?;
        self.check_counts()?;
        self.check_task_order()?;
        self.check_access_pattern(&features)?;
        self.check_read_signature()?;
        self.check_stonewalling()?;
        self.check_backend()
    }

    /// Whether data is checked (`-W` or `-R`).
    fn data_checked(&self) -> bool {
        self.verification.check_write || self.verification.check_read
    }

    /// Transfer and block sizes: positive, nested, and fit for data checks
    /// and the backend's minimum transfer.
    fn check_sizes(&self, features: &Features) -> Result<(), OptionError> {
        let t = self.layout.transfer_size;
        let b = self.layout.block_size;
        if t == 0 {
            return bad("transfer size (-t/transferSize) must be greater than 0".into());
        }
        if b == 0 {
            return bad("block size (-b/blockSize) must be greater than 0".into());
        }
        if t > b {
            return bad(format!(
                "transfer size (-t/transferSize = {}) must not be larger than block size \
                 (-b/blockSize = {})",
                format_size(t),
                format_size(b)
            ));
        }
        if !b.is_multiple_of(t) {
            return bad(format!(
                "block size (-b/blockSize = {}) must be a multiple of transfer size \
                 (-t/transferSize = {})",
                format_size(b),
                format_size(t)
            ));
        }
        let checked = self.data_checked();
        if checked && !t.is_multiple_of(8) {
            return bad(format!(
                "transfer size (-t/transferSize = {t}) must be a multiple of 8 bytes when data \
                 is checked (-W/checkWrite, -R/checkRead)"
            ));
        }
        if t < features.min_transfer {
            return bad(format!(
                "transfer size (-t/transferSize = {t}) must be at least {} bytes with -a {}",
                features.min_transfer, self.api_kind
            ));
        }
        Ok(())
    }

    /// Counts, delays and the signature are in range, and the test does
    /// something.
    fn check_counts(&self) -> Result<(), OptionError> {
        if self.layout.segment_count == 0 {
            return bad("segment count (-s/segmentCount) must be at least 1".into());
        }
        if self.repetitions == 0 {
            return bad("repetitions (-i/repetitions) must be at least 1".into());
        }
        if self.layout.num_tasks < 0 {
            return bad(format!(
                "number of tasks (-N/numTasks = {}) must not be negative (0 means all)",
                self.layout.num_tasks
            ));
        }
        if !self.timing.inter_test_delay.is_finite() || self.timing.inter_test_delay < 0.0 {
            return bad(format!(
                "inter-test delay (-d/interTestDelay = {}) must be a non-negative number",
                self.timing.inter_test_delay
            ));
        }
        if !(i64::from(i32::MIN)..=i64::from(u32::MAX))
            .contains(&self.verification.set_timestamp_signature)
        {
            return bad(format!(
                "time stamp signature (-G/setTimeStampSignature = {}) must fit in 32 bits",
                self.verification.set_timestamp_signature
            ));
        }
        if !(self.write_file
            || self.read_file
            || self.verification.check_write
            || self.verification.check_read)
        {
            return bad("the test must write, read or check (-w, -r, -W or -R)".into());
        }
        Ok(())
    }

    /// Task reordering (`-C`, `-Z`, `-Q`) and the node layout overrides.
    fn check_task_order(&self) -> Result<(), OptionError> {
        if self.ordering.reorder_tasks && self.ordering.reorder_tasks_random > 0 {
            return bad(
                "-C and -Z are mutually exclusive (reorderTasksConstant, reorderTasksRandom)"
                    .into(),
            );
        }
        if self.ordering.reorder_tasks && self.ordering.task_per_node_offset == 0 {
            return bad(
                "-C with -Q 0 (reorderTasksConstant, taskPerNodeOffset): every rank \
                        would read back its own data, from its own cache; -Q must be at least 1"
                    .into(),
            );
        }
        if self.layout.num_nodes == Some(0) {
            return bad(
                "numNodes must be at least 1 (leave it out to use the detected nodes)".into(),
            );
        }
        if self.layout.num_tasks_on_node0 == Some(0) {
            return bad(
                "numTasksOnNode0 must be at least 1 (leave it out to use the detected layout)"
                    .into(),
            );
        }
        Ok(())
    }

    /// Random offsets (`-z`, `--randomPrefill`) and file per process (`-F`)
    /// go with each other, the reordering and the backend's features.
    fn check_access_pattern(&self, features: &Features) -> Result<(), OptionError> {
        let b = self.layout.block_size;
        if self.ordering.offsets.is_random() && !self.layout.file_per_proc {
            if self.ordering.reorder_tasks {
                return bad("-z with -C needs -F: a shared file with random offsets \
                            (randomOffset) cannot be reordered by task (reorderTasksConstant)"
                    .into());
            }
            if self.ordering.reorder_tasks_random > 0 {
                return bad("-z with -Z needs -F: a shared file with random offsets \
                            (randomOffset) cannot be reordered by task (reorderTasksRandom)"
                    .into());
            }
        }
        if self.ordering.offsets.is_random()
            && self.verification.check_read
            && self.ordering.random_offset_seed.is_none()
        {
            return bad("-z with -R (randomOffset with checkRead) needs a fixed \
                        --random-offset-seed so the read-back visits the same offsets"
                .into());
        }
        if self.ordering.offsets.is_random() && !features.random_offsets {
            return bad(format!(
                "random offsets (-z/randomOffset) are not available with -a {}",
                self.api_kind
            ));
        }
        if self.layout.file_per_proc && !features.file_per_process {
            return bad(format!(
                "file per process (-F/filePerProc) is not available with -a {}",
                self.api_kind
            ));
        }
        if !self.layout.file_per_proc && !features.shared_file {
            return bad(format!(
                "a shared file (no -F/filePerProc) is not available with -a {}: \
                 it maps a file per process; add -F",
                self.api_kind
            ));
        }
        if self.ordering.random_prefill > 0 {
            if !self.ordering.offsets.is_random() {
                return bad("--randomPrefill is only useful with random offsets (-z)".into());
            }
            if !b.is_multiple_of(self.ordering.random_prefill) {
                return bad(format!(
                    "--randomPrefill ({}) must divide the block size (-b/blockSize = {})",
                    format_size(self.ordering.random_prefill),
                    format_size(b)
                ));
            }
        }
        Ok(())
    }

    /// `-R` without `-w` reads back an existing file: it needs the
    /// signature that file was written with.
    fn check_read_signature(&self) -> Result<(), OptionError> {
        if self.verification.check_read
            && !self.write_file
            && self.verification.set_timestamp_signature == 0
        {
            return bad(
                "-R without -w (checkRead of an existing file) needs the signature \
                        it was written with: set -G/setTimeStampSignature"
                    .into(),
            );
        }
        Ok(())
    }

    /// Stonewalling (`-D`, wear-out, status file) with data checks and
    /// split write/read runs.
    fn check_stonewalling(&self) -> Result<(), OptionError> {
        let checked = self.data_checked();
        if self.timing.deadline_for_stonewalling > 0
            && checked
            && self.timing.stonewalling_status_file.is_none()
        {
            return bad(
                "-D (deadlineForStonewalling) cannot be combined with -W/-R data checks \
                        unless stoneWallingStatusFile is set"
                    .into(),
            );
        }
        if self.timing.stonewalling_wear_out && self.timing.deadline_for_stonewalling == 0 {
            return bad("stoneWallingWearOut needs a stonewalling deadline (-D)".into());
        }
        if self.timing.stonewalling_status_file.is_some() {
            if !self.keep_file {
                return bad(
                    "stoneWallingStatusFile splits write and read over several runs: \
                            it needs -k (keepFile)"
                        .into(),
                );
            }
            if self.write_file && !self.timing.stonewalling_wear_out {
                return bad("stoneWallingStatusFile with a write test (-w) needs \
                            stoneWallingWearOut=1"
                    .into());
            }
        }
        Ok(())
    }

    /// File-system hints (BeeGFS), GPUDirect, then the selected backend's
    /// own checks, as a run would make them.
    fn check_backend(&self) -> Result<(), OptionError> {
        if let Some(c) = self.directive_number::<u64>("beegfsChunkSize") {
            if !c.is_power_of_two() || c < (64 << 10) {
                return bad(format!(
                    "beegfsChunkSize ({c}) must be a power of two of at least 64k"
                ));
            }
        }
        if self.directive_number::<u64>("beegfsNumTargets") == Some(0) {
            return bad("beegfsNumTargets must be at least 1".into());
        }
        if self.gpu_direct && !self.directive_on("useO_DIRECT") {
            return bad("--gpuDirect needs direct I/O (--posix.odirect)".into());
        }
        registry::check_options(self.api_kind.name(), &self.backend_options())
            .map_err(OptionError::Invalid)
    }

    /// The module options the selected backend gets: those given (except
    /// the file-system ones, which only [`crate::driver::advice`] reports),
    /// plus the IOR 3 directives in effect (aliases, see `aliases`) for
    /// the modules it reads (`-H`/`showHints` becomes `--mpiio.showHints`
    /// with `-a MPIIO`), unless given as module options too.
    pub fn backend_options(&self) -> Vec<ModuleOption> {
        let is_fs = crate::driver::advice::is_fs_module_key;
        let mut v: Vec<ModuleOption> = self
            .module_options
            .iter()
            .filter(|(_, k, _)| !is_fs(k))
            .cloned()
            .collect();
        let d = self.api_kind.descriptor();
        let modules = std::iter::once(d.module).chain(d.reads.iter().copied());
        for d in modules.filter_map(registry::find_module) {
            for o in d.options.iter().filter(|o| !is_fs(o.key)) {
                let Some(value) = o.directive.and_then(|n| self.directive_setting(n)) else {
                    continue;
                };
                let value = value.map(str::to_string);
                let given = v.iter().any(|(m, k, _)| {
                    m.eq_ignore_ascii_case(d.module) && k.eq_ignore_ascii_case(o.key)
                });
                if !given {
                    v.push((d.module.to_string(), o.key.to_string(), value));
                }
            }
        }
        v
    }
}
