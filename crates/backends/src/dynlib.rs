//! Loading an optional C library (parallel HDF5, PnetCDF) with dlopen when
//! its backend is created, instead of linking it into every binary: which
//! file to load ([`LibrarySpec`]: the `PARIO_*_LIBRARY` override, else the
//! file build.rs found, else its soname), the typed [`LoadError`] when none
//! loads, and [`c_library!`], which declares a table of resolved symbols
//! that owns the library handle, so the pointers live as long as the table.

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use std::ffi::{CString, OsStr, OsString};
use std::fmt;
use std::sync::Arc;

/// A value build.rs recorded (`option_env!`), or "" in a build that did not
/// find the library (whose backend the registry then refuses).
pub const fn built_env(v: Option<&'static str>) -> &'static str {
    match v {
        Some(v) => v,
        None => "",
    }
}

/// One library a backend loads, described at compile time.
#[derive(Debug)]
pub struct LibrarySpec {
    /// The API name (`-a HDF5`).
    pub api: &'static str,
    /// What the library is, for messages ("parallel HDF5").
    pub what: &'static str,
    /// Environment variable naming the file to load instead.
    pub env: &'static str,
    /// The file build.rs found (canonical path; may be empty).
    pub built: &'static str,
    /// Its soname, the fallback looked up by the dynamic loader (may be empty).
    pub soname: &'static str,
    /// The package that installs it, for the hint (may be empty).
    pub package: &'static str,
    /// A function only the right kind of library exports, checked first.
    pub marker: &'static str,
    /// What lacking `marker` means ("a serial build of HDF5").
    pub marker_missing: &'static str,
}

/// Why a library could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// No candidate file could be opened.
    NotLoaded,
    /// A file opened but lacks a function pario needs.
    MissingSymbol,
    /// The library opened but is not usable (e.g. too old).
    Unsupported,
}

/// A library that failed to load, with every file tried: one line for the
/// user, starting with `-a <API>:` like the registry's other errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub kind: LoadErrorKind,
    /// The API name (`HDF5`).
    pub api: &'static str,
    /// Each file tried, with what the loader said (or what is wrong).
    pub tried: Vec<(String, String)>,
    /// What to do about it.
    pub hint: String,
    /// The kind of library ("parallel HDF5").
    pub what: &'static str,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // dlerror's text usually starts with the file name already.
        let tried: Vec<String> = self
            .tried
            .iter()
            .map(|(file, why)| {
                if why.contains(file.as_str()) {
                    why.clone()
                } else {
                    format!("{file}: {why}")
                }
            })
            .collect();
        let verb = match self.kind {
            LoadErrorKind::NotLoaded => "cannot load",
            LoadErrorKind::MissingSymbol | LoadErrorKind::Unsupported => "cannot use",
        };
        write!(
            f,
            "-a {}: {verb} {} ({}); {}",
            self.api,
            self.what,
            tried.join("; "),
            self.hint
        )
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    /// An error about a library that did open.
    pub fn unusable(
        spec: &LibrarySpec,
        opened: &Opened,
        kind: LoadErrorKind,
        why: impl Into<String>,
    ) -> Self {
        LoadError {
            kind,
            api: spec.api,
            tried: vec![(opened.file.clone(), why.into())],
            hint: spec.hint(opened.source == Source::Environment),
            what: spec.what,
        }
    }

    /// The library opened but lacks `symbol`, a function pario calls;
    /// `needed` says which version would have it (or is empty).
    pub fn missing_symbol(spec: &LibrarySpec, opened: &Opened, symbol: &str, needed: &str) -> Self {
        let why = format!("lacks {symbol}, which pario calls{needed}");
        LoadError::unusable(spec, opened, LoadErrorKind::MissingSymbol, why)
    }
}

/// A library opened by [`LibrarySpec::open`].
#[derive(Debug)]
pub struct Opened {
    pub library: Library,
    /// The name it was opened by (path or soname).
    pub file: String,
    pub source: Source,
}

/// How the loaded file was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The `PARIO_*_LIBRARY` environment variable.
    Environment,
    /// The file build.rs found.
    Build,
    /// The soname, searched by the dynamic loader.
    Soname,
}

impl LibrarySpec {
    /// The files to try, in order: the override alone when given (a user
    /// who names a file means that file), else the build's file and then
    /// its soname.
    pub fn candidates(&self, override_file: Option<&OsStr>) -> Vec<(OsString, Source)> {
        if let Some(f) = override_file.filter(|f| !f.is_empty()) {
            return vec![(f.to_os_string(), Source::Environment)];
        }
        let mut out = Vec::new();
        if !self.built.is_empty() {
            out.push((OsString::from(self.built), Source::Build));
        }
        if !self.soname.is_empty() {
            out.push((OsString::from(self.soname), Source::Soname));
        }
        out
    }

    /// What to do when loading failed.
    fn hint(&self, from_env: bool) -> String {
        let install = match (self.package.is_empty(), self.soname.is_empty()) {
            (false, _) => format!("install {}", self.package),
            (true, false) => format!("install the package providing {}", self.soname),
            (true, true) => format!("install {}", self.what),
        };
        if from_env {
            format!(
                "set {} to a {} library, or unset it to use the one this build found",
                self.env, self.what
            )
        } else {
            format!("set {} to the library's path or {install}", self.env)
        }
    }

    /// [`open`](Self::open) the library and resolve its table with
    /// `resolve` (a [`c_library!`] table's `resolve`): the table, shared,
    /// or the first symbol missing, reported with `needed` (which version
    /// would have it, or empty). One place for what every run-time-loaded
    /// library does on loading.
    ///
    /// # Safety
    /// `resolve`'s declarations must be those of the C library that
    /// [`Self::marker`] identifies, as the table's `resolve` requires.
    pub unsafe fn load<T>(
        &self,
        override_file: Option<&OsStr>,
        resolve: unsafe fn(Opened) -> Result<T, (&'static str, Opened)>,
        needed: &str,
    ) -> Result<Arc<T>, LoadError> {
        let opened = self.open(override_file)?;
        // SAFETY: the caller guarantees the declarations match the library
        // the marker identified when `open` accepted it.
        let table = unsafe { resolve(opened) };
        table
            .map(Arc::new)
            .map_err(|(symbol, opened)| LoadError::missing_symbol(self, &opened, symbol, needed))
    }

    /// Open the library: `override_file` (the environment variable's
    /// value) if given, else the build's file, else the soname; the first
    /// that opens must export [`Self::marker`].
    pub fn open(&self, override_file: Option<&OsStr>) -> Result<Opened, LoadError> {
        let candidates = self.candidates(override_file);
        let from_env = candidates
            .first()
            .is_some_and(|(_, s)| *s == Source::Environment);
        let mut tried = Vec::new();
        for (file, source) in &candidates {
            let name = file.to_string_lossy().into_owned();
            // RTLD_NOW: an unresolvable symbol fails here, with dlerror's
            // text, instead of aborting the run at its first call.
            // RTLD_NODELETE: never unmapped, even when the last handle
            // closes; HDF5 registers callbacks with MPI (run at
            // MPI_Finalize) and with atexit that must stay callable.
            let flags = RTLD_NOW | RTLD_LOCAL | libc::RTLD_NODELETE;
            // SAFETY: loading runs the library's initialisers; the files
            // tried are the HDF5/PnetCDF this build was made for or the one
            // the user named, whose initialisers have no preconditions.
            match unsafe { Library::open(Some(file), flags) } {
                Ok(library) => {
                    let opened = Opened {
                        library,
                        file: name,
                        source: *source,
                    };
                    // SAFETY: only looks the symbol up; the pointer is not used.
                    let marker = unsafe { opened.library.get::<*const u8>(self.marker.as_bytes()) };
                    return match marker {
                        Ok(_) => Ok(opened),
                        Err(_) => Err(LoadError::unusable(
                            self,
                            &opened,
                            LoadErrorKind::MissingSymbol,
                            self.marker_missing,
                        )),
                    };
                }
                Err(e) => tried.push((name, e.to_string())),
            }
        }
        if tried.is_empty() {
            tried.push((
                self.env.to_string(),
                "no library file known to this build".to_string(),
            ));
        }
        Err(LoadError {
            kind: LoadErrorKind::NotLoaded,
            api: self.api,
            tried,
            hint: self.hint(from_env),
            what: self.what,
        })
    }
}

/// The address of a variable a loaded library exports (dlsym of a data
/// symbol), read with [`DataSymbol::read`].
#[derive(Clone, Copy, Debug)]
pub struct DataSymbol<T>(pub *const T);

// SAFETY: the pointer is the address of a variable in a library that stays
// mapped for the rest of the process (RTLD_NODELETE, and the table holding
// it owns a handle); it is only read, through the unsafe `read`, whose
// callers answer for the library having set the value.
unsafe impl<T: Sync> Send for DataSymbol<T> {}
// SAFETY: as for Send.
unsafe impl<T: Sync> Sync for DataSymbol<T> {}

impl<T: Copy> DataSymbol<T> {
    /// The variable's current value.
    ///
    /// # Safety
    /// The library must have initialised the variable, and nothing may be
    /// writing it concurrently.
    pub unsafe fn read(self) -> T {
        // SAFETY: a valid, aligned address of a `T` (see the type's Send
        // impl); initialised per this function's contract.
        unsafe { std::ptr::read(self.0) }
    }
}

/// Declare a table of symbols resolved from a loaded C library:
///
/// ```text
/// c_library! {
///     /// Doc.
///     pub struct Lib {
///         fn f(x: c_int) -> c_int;
///         static g: i64;
///     }
/// }
/// ```
///
/// gives `pub struct Lib` with one field per function (a function pointer
/// of that signature, named like the function) and per variable (a
/// [`DataSymbol`]), plus the library handle, and `Lib::resolve(opened)`,
/// which looks every name up and fails with the first one missing.
macro_rules! c_library {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(fn $f:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*
            $(static $s:ident: $sty:ty;)*
        }
    ) => {
        $(#[$meta])*
        #[allow(non_snake_case)]
        pub struct $name {
            $(pub $f: unsafe extern "C" fn($($arg: $ty),*) -> $ret,)*
            $(pub $s: $crate::dynlib::DataSymbol<$sty>,)*
            /// The handle the pointers above come from: owning it keeps
            /// them valid for as long as this table lives.
            _library: libloading::os::unix::Library,
            /// The name the library was opened by (path or soname).
            pub file: String,
        }

        impl $name {
            /// Resolve every symbol of the table from the opened library;
            /// on failure, the first name missing and the library back.
            ///
            /// # Safety
            /// The library must be the C library the declarations were
            /// taken from (same names, same signatures and types as its
            /// headers).
            #[allow(non_snake_case)]
            pub unsafe fn resolve(
                opened: $crate::dynlib::Opened,
            ) -> Result<$name, (&'static str, $crate::dynlib::Opened)> {
                $(
                    // SAFETY: the caller guarantees the symbol has this
                    // signature; the pointer is stored next to the handle
                    // that keeps it valid.
                    let found = unsafe {
                        opened.library.get::<unsafe extern "C" fn($($ty),*) -> $ret>(
                            concat!(stringify!($f), "\0").as_bytes(),
                        )
                    };
                    let $f = match found {
                        Ok(symbol) => *symbol,
                        Err(_) => return Err((stringify!($f), opened)),
                    };
                )*
                $(
                    let name = concat!(stringify!($s), "\0");
                    // SAFETY: as above, for the address of a variable of
                    // type `$sty`.
                    let found = unsafe { opened.library.get::<*const $sty>(name.as_bytes()) };
                    let $s = match found {
                        Ok(symbol) => $crate::dynlib::DataSymbol(*symbol),
                        Err(_) => return Err((stringify!($s), opened)),
                    };
                )*
                Ok($name {
                    $($f,)*
                    $($s,)*
                    _library: opened.library,
                    file: opened.file,
                })
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("file", &self.file)
                    .finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use c_library;

/// The error of a C library's negative return (`-errno`; EIO when the
/// value cannot be negated), as librados, libcephfs and libnfs report.
pub(crate) fn neg_errno(ret: i32) -> std::io::Error {
    std::io::Error::from_raw_os_error(ret.checked_neg().unwrap_or(libc::EIO))
}

/// The text of a negative return (see [`neg_errno`]).
pub(crate) fn errno_text(ret: i32) -> String {
    neg_errno(ret).to_string()
}

/// A C string of an option or path passed to a C library (the options
/// are checked free of NUL when parsed; one left would be dropped).
pub(crate) fn c_arg(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: LibrarySpec = LibrarySpec {
        api: "TEST",
        what: "test library",
        env: "PARIO_TEST_LIBRARY_UNSET",
        built: "/nonexistent/libtest.so.1.2.3",
        soname: "libpario-no-such-library.so.1",
        package: "libtest1",
        marker: "test_marker",
        marker_missing: "not the test library",
    };

    #[test]
    fn override_alone_else_build_file_then_soname() {
        let c = SPEC.candidates(Some(OsStr::new("/x/lib.so")));
        assert_eq!(c, vec![(OsString::from("/x/lib.so"), Source::Environment)]);
        let c = SPEC.candidates(Some(OsStr::new("")));
        assert_eq!(c.len(), 2, "an empty override is no override: {c:?}");
        assert_eq!(c[0], (OsString::from(SPEC.built), Source::Build));
        assert_eq!(c[1], (OsString::from(SPEC.soname), Source::Soname));
    }

    #[test]
    fn failures_name_every_file_tried_and_what_to_do() {
        let e = SPEC.open(None).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::NotLoaded);
        let text = e.to_string();
        assert!(
            text.starts_with("-a TEST: cannot load test library ("),
            "{text}"
        );
        assert!(
            text.contains(SPEC.built) && text.contains(SPEC.soname),
            "{text}"
        );
        assert!(text.contains("set PARIO_TEST_LIBRARY_UNSET"), "{text}");
        assert!(text.ends_with("install libtest1"), "{text}");
        assert!(!text.contains('\n'), "{text}");
        let e = SPEC
            .open(Some(OsStr::new("/nonexistent/x.so")))
            .unwrap_err();
        assert_eq!(e.tried.len(), 1, "{e}");
        assert!(e.to_string().contains("/nonexistent/x.so"), "{e}");
        assert!(e.to_string().contains("or unset it"), "{e}");
    }

    mod libc_table {
        use std::os::raw::{c_char, c_int};
        c_library! {
            /// Two functions and a variable of the C library.
            pub struct Good {
                fn abs(v: c_int) -> c_int;
                fn strlen(s: *const c_char) -> usize;
                static environ: usize;
            }
        }
        c_library! {
            /// One of them missing.
            #[allow(dead_code)]
            pub struct Bad {
                fn abs(v: c_int) -> c_int;
                fn pario_no_such_function(v: c_int) -> c_int;
            }
        }
    }

    const LIBC: LibrarySpec = LibrarySpec {
        env: "PARIO_TEST_LIBC_UNSET",
        built: "libc.so.6",
        soname: "",
        marker: "abs",
        ..SPEC
    };

    #[test]
    fn tables_resolve_every_symbol_or_name_the_missing_one() {
        let opened = LIBC.open(None).unwrap();
        assert_eq!(
            (opened.file.as_str(), opened.source),
            ("libc.so.6", Source::Build)
        );
        // SAFETY: the declarations are the C library's.
        let good = unsafe { libc_table::Good::resolve(opened) }.unwrap();
        // SAFETY: table calls with valid arguments; `environ` is set
        // before main and not written by this test.
        unsafe {
            assert_eq!((good.abs)(-7), 7);
            assert_eq!((good.strlen)(c"four".as_ptr()), 4);
            assert_ne!(good.environ.read(), 0);
        }
        assert!(format!("{good:?}").contains("libc.so.6"));
        let opened = LIBC.open(None).unwrap();
        // SAFETY: as above; the missing function is never called.
        let (missing, back) = unsafe { libc_table::Bad::resolve(opened) }.unwrap_err();
        assert_eq!(missing, "pario_no_such_function");
        let e = LoadError::unusable(&LIBC, &back, LoadErrorKind::MissingSymbol, "lacks it");
        assert_eq!(
            e.to_string(),
            "-a TEST: cannot use test library (libc.so.6: lacks it); \
             set PARIO_TEST_LIBC_UNSET to the library's path or install libtest1"
        );
    }

    #[test]
    fn a_library_without_the_marker_is_refused() {
        // The C library opens but has no `test_marker`.
        let e = SPEC.open(Some(OsStr::new("libc.so.6"))).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::MissingSymbol, "{e}");
        assert!(e.to_string().contains("not the test library"), "{e}");
        assert!(e.to_string().starts_with("-a TEST: cannot use"), "{e}");
    }
}
