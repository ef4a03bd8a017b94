//! Which backends this build has, and how to create one from an API name and
//! its module options. One match, no conditional compilation sprinkled around.

use crate::dummy::{DummyBackend, DummyOptions};
use crate::faulty::{FaultPlan, FaultyBackend};
use crate::mmap::{MmapBackend, MmapOptions};
use crate::mpiio::MpiioBackend;
use crate::posix::{PosixBackend, PosixOptions};
use crate::uring::UringBackend;
use crate::Backend;

/// The API names IOR accepts, and whether this build has each.
pub fn available_apis() -> Vec<(&'static str, bool)> {
    vec![
        ("POSIX", true),
        ("DUMMY", true),
        ("MPIIO", true),
        ("HDF5", cfg!(pario_hdf5)),
        ("NCMPI", cfg!(pario_ncmpi)),
        ("MMAP", true),
        ("URING", true),
        ("AIO", cfg!(pario_aio)),
    ]
}

/// What to install for a backend left out of this build (build.rs did not
/// find its library).
fn missing_library_hint(api: &str) -> &'static str {
    match api {
        "HDF5" => ": install a parallel HDF5 (Debian: libhdf5-openmpi-dev) and rebuild",
        "NCMPI" => ": install PnetCDF built for Open MPI (Debian: libpnetcdf-dev) and rebuild",
        "AIO" => ": install libaio (Debian: libaio-dev) and rebuild",
        _ => "",
    }
}

/// A created backend plus notes to report at -v (options accepted but not applied).
pub struct Created {
    pub backend: Box<dyn Backend>,
    pub notes: Vec<String>,
}

/// Create the backend for `api` (case-insensitive). `options` holds every
/// `--module.key[=value]` given; options of other modules are ignored here
/// (the front end reports them at -v). `rank` selects fault injection.
pub fn create_backend(
    api: &str,
    options: &[(String, String, Option<String>)],
    rank: u32,
) -> Result<Created, String> {
    let upper = api.to_ascii_uppercase();
    let mine = |module: &str| -> crate::ModuleOptions {
        options
            .iter()
            .filter(|(m, _, _)| m.eq_ignore_ascii_case(module))
            .map(|(_, k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect()
    };
    let mut notes = Vec::new();
    let backend: Box<dyn Backend> = match upper.as_str() {
        "POSIX" => {
            let (opts, n) = PosixOptions::parse(&mine("posix"))?;
            notes.extend(n);
            Box::new(PosixBackend::new(opts))
        }
        "DUMMY" => Box::new(DummyBackend {
            options: DummyOptions::parse(&mine("dummy"))?.for_rank(rank),
        }),
        "MMAP" => Box::new(MmapBackend::new(MmapOptions::parse(&mine("mmap"))?)),
        "MPIIO" => {
            if !pario_comm::mpiio::is_ready() {
                return Err(format!(
                    "-a {api}: MPI-IO needs MPI, which is not initialised in this process"
                ));
            }
            let (b, n) = MpiioBackend::from_options(&mine("mpiio"))?;
            notes.extend(n);
            Box::new(b)
        }
        "URING" => Box::new(UringBackend::from_options(&mine("uring"))?),
        #[cfg(pario_aio)]
        "AIO" => {
            let (b, n) = crate::aio::AioBackend::from_options(&mine("aio"), &mine("posix"))?;
            notes.extend(n);
            Box::new(b)
        }
        #[cfg(pario_hdf5)]
        "HDF5" => {
            if !pario_comm::mpiio::is_ready() {
                return Err(format!(
                    "-a {api}: parallel HDF5 needs MPI, which is not initialised in this process"
                ));
            }
            let (b, n) = crate::hdf5::Hdf5Backend::from_options(&mine("hdf5"))?;
            notes.extend(n);
            Box::new(b)
        }
        #[cfg(pario_ncmpi)]
        "NCMPI" => {
            if !pario_comm::mpiio::is_ready() {
                return Err(format!(
                    "-a {api}: PnetCDF needs MPI, which is not initialised in this process"
                ));
            }
            let (b, n) = crate::ncmpi::NcmpiBackend::from_options(&mine("ncmpi"))?;
            notes.extend(n);
            Box::new(b)
        }
        _ => {
            let known = available_apis();
            return Err(match known.iter().find(|(n, _)| *n == upper) {
                Some(_) => format!(
                    "-a {api}: this build of pario has no {upper} backend{} (built: {})",
                    missing_library_hint(&upper),
                    known
                        .iter()
                        .filter(|(_, b)| *b)
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => format!(
                    "-a {api}: unknown API (known: {})",
                    known.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                ),
            });
        }
    };
    let backend = match FaultPlan::from_env(rank)? {
        Some(plan) => Box::new(FaultyBackend::new(backend, plan)) as Box<dyn Backend>,
        None => backend,
    };
    Ok(Created { backend, notes })
}
