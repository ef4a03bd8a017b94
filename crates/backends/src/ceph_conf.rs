//! The configuration calls librados (RADOS) and libcephfs (CEPHFS) share:
//! `*_conf_read_file`, `*_conf_parse_env` and `*_conf_set`, the same three
//! shapes on each library's own handle, with the same messages.

use crate::dynlib::{c_arg, errno_text};
use std::os::raw::{c_char, c_int};
use std::path::Path;

/// One library's configuration calls on one of its handles.
pub(crate) struct CephConf<H: Copy> {
    /// The backend's name in messages ("RADOS", "CEPHFS").
    api: &'static str,
    /// The option that names the configuration file ("--rados.conf").
    conf_option: &'static str,
    handle: H,
    read_file: unsafe extern "C" fn(H, *const c_char) -> c_int,
    parse_env: unsafe extern "C" fn(H, *const c_char) -> c_int,
    set: unsafe extern "C" fn(H, *const c_char, *const c_char) -> c_int,
}

impl<H: Copy> CephConf<H> {
    /// # Safety
    /// The three functions must be the library's own (from its resolved
    /// table) and `handle` one that library created and has not released,
    /// for as long as the value is used.
    pub(crate) unsafe fn new(
        (api, conf_option): (&'static str, &'static str),
        handle: H,
        read_file: unsafe extern "C" fn(H, *const c_char) -> c_int,
        parse_env: unsafe extern "C" fn(H, *const c_char) -> c_int,
        set: unsafe extern "C" fn(H, *const c_char, *const c_char) -> c_int,
    ) -> CephConf<H> {
        CephConf {
            api,
            conf_option,
            handle,
            read_file,
            parse_env,
            set,
        }
    }

    /// Read `conf` (None: the library's default places, which
    /// `conf_text` names in the message) and then CEPH_ARGS.
    pub(crate) fn read(&self, conf: Option<&Path>, conf_text: &str) -> Result<(), String> {
        let path = conf.map(|p| c_arg(&p.to_string_lossy()));
        // SAFETY: the library's call on its handle (see `new`); `path` is
        // a C string or NULL (the library searches its default places).
        let ret = unsafe {
            (self.read_file)(
                self.handle,
                path.as_ref().map_or(std::ptr::null(), |p| p.as_ptr()),
            )
        };
        if ret < 0 {
            let hint = if conf.is_none() {
                format!("; give {}=FILE", self.conf_option)
            } else {
                String::new()
            };
            return Err(self.failed(&format!("read {conf_text}"), ret) + &hint);
        }
        // SAFETY: as above; NULL means CEPH_ARGS.
        let ret = unsafe { (self.parse_env)(self.handle, std::ptr::null()) };
        if ret < 0 {
            return Err(self.failed("apply CEPH_ARGS", ret));
        }
        Ok(())
    }

    /// Set one configuration option.
    pub(crate) fn set(&self, key: &str, value: &str) -> Result<(), String> {
        let (k, v) = (c_arg(key), c_arg(value));
        // SAFETY: the library's call on its handle (see `new`), two C
        // strings.
        let ret = unsafe { (self.set)(self.handle, k.as_ptr(), v.as_ptr()) };
        if ret < 0 {
            return Err(self.failed(&format!("set {key}={value}"), ret));
        }
        Ok(())
    }

    /// "-a API: cannot WHAT: ERROR" for a call's negative return.
    fn failed(&self, what: &str, ret: c_int) -> String {
        format!("-a {}: cannot {what}: {}", self.api, errno_text(ret))
    }
}
