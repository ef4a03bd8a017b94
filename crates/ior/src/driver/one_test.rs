//! One test of an invocation: its spec, backend and memory hog on the
//! ranks it uses, the observed engine run and the lines around it.

use super::*;

/// What every test of one invocation shares.
pub(super) struct RunCtx<'a, 'w> {
    pub(super) run: &'a RunContext<'a>,
    pub(super) console: &'a Console<'w>,
    /// Text output suppressed (a machine-readable summary goes to stdout).
    pub(super) quiet: bool,
    /// The command line as IOR's "options" parameter shows it.
    pub(super) options_text: String,
    /// The shared run: interrupt state (SIGINT/SIGTERM), time series,
    /// live progress and warm-up of every phase, keeping the record.
    pub(super) session: &'a Session<'a, 'w>,
}

/// How one test went, as every rank sees it (`test` complete on rank 0).
pub(super) struct OneOutcome {
    /// The result; with an error, the phases done before it (if any ran).
    pub(super) test: Option<TestResult>,
    pub(super) error: Option<String>,
    /// Warnings about the options, for the run record (rank 0).
    pub(super) warnings: Vec<String>,
}

impl OneOutcome {
    pub(super) fn failed(error: String, warnings: Vec<String>) -> Self {
        OneOutcome {
            test: None,
            error: Some(error),
            warnings,
        }
    }
}

/// What the test's ranks report: the result (with an error, the phases
/// done before it, if any ran), the error, and the wear-out count.
pub(super) type RanksOutcome = (Option<TestResult>, Option<String>, Option<u64>);

/// Run one test on the ranks it uses; every rank returns the same outcome.
/// `advised` lists the advice already printed (each is printed once per run).
pub(super) fn run_one(
    ctx: &RunCtx<'_, '_>,
    record: &RunRecord,
    params: &IorParams,
    test_id: u32,
    advised: &mut Vec<String>,
) -> OneOutcome {
    let comm = ctx.run.comm;
    let n = match participants(params, comm.size()) {
        Ok(n) => n,
        Err(e) => return OneOutcome::failed(e, Vec::new()),
    };
    let mut spec = match build_spec(params, n, &ctx.run.layout, test_id, &ctx.options_text) {
        Ok(s) => s,
        Err(e) => return OneOutcome::failed(e, Vec::new()),
    };
    if ctx.session.progress.warmup > 0.0 {
        let w = serde_json::json!(ctx.session.progress.warmup);
        spec.parameters.insert("warmup".into(), w);
    }
    let mut extras = build_extras(params);
    extras.progress = ctx.session.progress.clone();
    // Every rank has the flag (the engine asks all or none).
    extras.stop = Some(ctx.session.interrupt().stop_flag());
    let warnings = match preflight(comm, params, advised, ctx.console) {
        Ok(w) => w,
        Err((e, w)) => return OneOutcome::failed(e, w),
    };
    let (test, error, pairs) = subset::on_first(comm, n, |sub| {
        run_on_ranks(ctx, sub, record, params, &spec, &extras)
    })
    .unwrap_or((None, None, None));
    // Ranks outside the test learn its outcome from rank 0.
    let error = subset::share_error(comm, error.as_deref());
    if comm.rank() == 0 && !ctx.quiet {
        if let Some(test) = &test {
            test_end_lines(ctx.console, params, test, error.is_none(), pairs);
        }
    }
    OneOutcome {
        test,
        error,
        warnings,
    }
}

/// Rank 0, after a test: the Max lines, the wear-out count, at -v the
/// latency percentiles, and with `summaryAlways` the test's summary.
pub(super) fn test_end_lines(
    console: &Console<'_>,
    params: &IorParams,
    test: &TestResult,
    ok: bool,
    pairs: Option<u64>,
) {
    if ok && params.verbose >= pario_results::render::MIN_VERBOSE_MAX_LINES {
        console.out(&ior_text::max_lines(test));
    }
    if let Some(p) = pairs {
        console.out(&ior_text::pairs_line(p));
    }
    // pario's addition at -v: the merged latency percentiles of each phase.
    if params.verbose >= 1 {
        console.out(&pario_results::render::latency::latency_block(test));
    }
    if params.summary_always {
        console.out(&format!(
            "\n{}{}",
            ior_text::summary_header(),
            ior_text::summary_rows(test)
        ));
    }
}

/// On the test's ranks (`sub`): create the backend and hold the memory
/// (both agreed on), then run the test.
pub(super) fn run_on_ranks(
    ctx: &RunCtx<'_, '_>,
    sub: &dyn Comm,
    record: &RunRecord,
    params: &IorParams,
    spec: &IorSpec,
    extras: &IorExtras,
) -> RanksOutcome {
    let (comm, layout) = (ctx.run.comm, &ctx.run.layout);
    let n = sub.size();
    let sub_layout = if n == comm.size() {
        layout.clone()
    } else {
        sub.node_layout()
    };
    let api = if params.dry_run { "DUMMY" } else { &params.api };
    let created = match create_agreed(sub, api, &params.backend_options(), comm.rank()) {
        Ok(c) => c,
        Err(e) => return (None, Some(e), None),
    };
    let physical = memhog::physical_memory();
    let req = memhog::request(params, sub_layout.local_size, physical);
    let (hog, per_node) = match memhog::hold(sub, req) {
        Ok(h) => h,
        Err(e) => return (None, Some(e), None),
    };
    // Ctrl-C / SIGTERM: new operations fail from then on.
    let notes = created.notes;
    if sub.rank() == 0 {
        for w in &created.warnings {
            ctx.console.warning(w);
        }
    }
    let backend = ctx.session.interrupt().wrap(created.backend);
    let spec = spec_on_backend(spec, params, backend.as_ref(), per_node);
    if sub.rank() == 0 {
        test_start_lines(ctx, params, &notes, hog.as_ref());
    }
    let env = Env {
        comm: sub,
        clock: ctx.run.clock(),
        backend: backend.as_ref(),
        topology: topology(
            &sub_layout,
            n,
            params
                .num_tasks_on_node0
                .and_then(|t| u32::try_from(t).ok()),
            params.num_nodes.and_then(|t| u32::try_from(t).ok()),
        ),
        host: layout.host.clone(),
    };
    let (mut out, pairs) = run_observed(ctx, &env, record, params, &spec, extras);
    drop(hog);
    leave_out_cut_phase(&mut out);
    let ran = !out.result.phases.is_empty();
    (
        (out.error.is_none() || ran).then_some(out.result),
        out.error.map(|e| e.message),
        pairs,
    )
}

/// What the error of an interrupted test adds about its cut phase.
pub(super) const CUT_PHASE_LEFT_OUT: &str =
    " (interrupted: left out of the summary, which holds finished phases)";

/// An interrupted test: the phase the stop request cut short (the engine
/// keeps it last) leaves the result, so that the summaries (text, JSON,
/// CSV) and the record hold only phases that finished, as the
/// interruption message says; the error names the cut phase.
pub(super) fn leave_out_cut_phase(out: &mut pario_engine::ior::IorOutcome) {
    if !out.interrupted || out.result.phases.pop().is_none() {
        return;
    }
    if let Some(e) = out.error.as_mut() {
        e.message.push_str(CUT_PHASE_LEFT_OUT);
    }
}

/// The test's spec as run on `backend`: its file system's usage, the
/// memory held per node (with `memoryPerNode`) and the backend's API version.
pub(super) fn spec_on_backend(
    spec: &IorSpec,
    params: &IorParams,
    backend: &dyn pario_backends::Backend,
    per_node: u64,
) -> IorSpec {
    let mut spec = spec.clone();
    spec.fs = backend
        .statfs(&parent_dir(&params.test_file))
        .ok()
        .map(|f| fs_usage(&f));
    if params.memory_per_node.is_some() {
        spec.parameters
            .insert("memoryPerNode".into(), json!(per_node));
    }
    spec.parameters
        .insert("apiVersion".into(), json!(backend.api_version()));
    spec
}

/// Runs the test in `env`: the test's rank 0 prints IOR's text as it goes
/// (a [`TextObserver`]), the other ranks print nothing. Returns the
/// engine's outcome and, on rank 0, the wear-out count.
pub(super) fn run_observed(
    ctx: &RunCtx<'_, '_>,
    env: &Env<'_>,
    record: &RunRecord,
    params: &IorParams,
    spec: &IorSpec,
    extras: &IorExtras,
) -> (pario_engine::ior::IorOutcome, Option<u64>) {
    if env.comm.rank() != 0 {
        return (
            run_ior_test_with(env, spec, extras, &mut NullObserver),
            None,
        );
    }
    let mut obs = TextObserver {
        console: ctx.console,
        run: record,
        verbose: params.verbose,
        use_existing: params.use_existing_test_file,
        quiet: ctx.quiet,
        pairs: None,
        clock: ctx.run.clock(),
        test_id: 0,
        first: KeepFirst {
            run: ctx.run,
            session: ctx.session,
        },
    };
    let out = run_ior_test_with(env, spec, extras, &mut obs);
    (out, obs.pairs)
}

/// The test's rank 0, before its I/O: the backend's notes (-v) and the
/// memory held (-vvv).
pub(super) fn test_start_lines(
    ctx: &RunCtx<'_, '_>,
    params: &IorParams,
    notes: &[String],
    hog: Option<&memhog::Held>,
) {
    if params.verbose >= 1 {
        for note in notes {
            ctx.console.note(note);
        }
    }
    if params.verbose >= 3 && !ctx.quiet {
        if let Some(h) = hog {
            if params.memory_per_node.is_some() {
                ctx.console.out(&format!(
                    "This node hogging {} bytes of memory\n",
                    h.per_node
                ));
            }
            ctx.console.out(&format!(
                "This task hogging {} bytes of memory\n",
                h.per_task
            ));
        }
    }
}
