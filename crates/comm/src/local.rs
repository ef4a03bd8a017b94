//! A one-rank communicator: every collective is the identity. For unit tests
//! and for tools (the `pario` command) that run without MPI.

use crate::{hostname, layout_from_override, Comm, NodeLayout, ReduceOp};

#[derive(Clone, Debug, Default)]
pub struct LocalComm;

impl LocalComm {
    pub fn new() -> Self {
        LocalComm
    }
}

impl Comm for LocalComm {
    fn rank(&self) -> u32 {
        0
    }
    fn size(&self) -> u32 {
        1
    }
    fn barrier(&self) {}
    fn broadcast_bytes(&self, _root: u32, _data: &mut Vec<u8>) {}
    fn all_reduce_f64(&self, values: &[f64], _op: ReduceOp) -> Vec<f64> {
        values.to_vec()
    }
    fn all_reduce_u64(&self, values: &[u64], _op: ReduceOp) -> Vec<u64> {
        values.to_vec()
    }
    fn gather_bytes(&self, _root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![data.to_vec()])
    }
    fn split(&self, color: Option<u32>) -> Option<Box<dyn Comm>> {
        color.map(|_| Box::new(LocalComm) as Box<dyn Comm>)
    }
    fn node_layout(&self) -> NodeLayout {
        let mut l = layout_from_override(0, 1, 1, hostname());
        l.overridden = false;
        l
    }
    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
    fn library_version(&self) -> String {
        "none".to_string()
    }
}
