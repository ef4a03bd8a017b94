//! The workload key and parameters of a run, shared by the run record and
//! the import of the original's output (no MPI here).

use crate::config::{Config, TestType};
use pario_results::{AccessOrder, Workload};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The geometry that makes two runs comparable.
pub fn workload(cfg: &Config) -> Workload {
    let o = &cfg.opts;
    Workload {
        api: "MPIIO".into(),
        num_tasks: cfg.n,
        file_per_proc: matches!(cfg.ty, TestType::NToN | TestType::AggToM),
        block_size: cfg.k * cfg.s,
        transfer_size: cfg.s,
        segment_count: 1,
        ordering: if cfg.strided {
            AccessOrder::Strided
        } else {
            AccessOrder::Sequential
        },
        items: 0,
        extra: format!(
            "mpi_io_test type={} m={} csize={} ahead={} collective={} norsend={} nofile={} touch={}",
            cfg.ty.number(),
            cfg.m,
            cfg.c,
            o.ahead,
            u8::from(o.collective),
            u8::from(o.norsend),
            u8::from(o.nofile),
            o.touch
        ),
    }
}

/// The options of the run, as record parameters.
pub fn parameters(cfg: &Config) -> BTreeMap<String, Value> {
    let o = &cfg.opts;
    let mut p = BTreeMap::new();
    let mut put = |k: &str, v: Value| {
        p.insert(k.to_string(), v);
    };
    put("type", json!(cfg.ty.number()));
    put("num_procs", json!(cfg.n));
    put("num_io", json!(cfg.m));
    put("num_io_per_host", json!(o.num_io));
    put("hosts", json!(o.host));
    put("nobj", json!(cfg.k));
    put("size", json!(cfg.s));
    put("csize", json!(cfg.c));
    put("strided", json!(cfg.strided));
    put("collective", json!(o.collective));
    put("touch", json!(o.touch));
    put("chkdata", json!(o.chkdata));
    put("ahead", json!(o.ahead));
    put("preallocate", json!(o.preallocate));
    put("sync", json!(o.sync));
    put("barrier", json!(o.barrier));
    put("bopen", json!(o.bopen));
    put("dio", json!(o.dio));
    put("nofile", json!(o.nofile));
    put("norsend", json!(o.norsend));
    put("deletefile", json!(o.deletefile));
    put("sleep", json!(o.sleep));
    put("hints", json!(o.hints));
    put("target", json!(o.target));
    put("targets", json!(o.targets));
    p
}
