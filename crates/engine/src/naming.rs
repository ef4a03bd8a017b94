//! Test file names, as IOR forms them: a shared file is the `-o` name; with
//! file per process each rank's file is `name.%08d` of the rank whose data it
//! holds, round-robin over `a@b@c` targets; `-u` puts each file in a
//! directory named after that rank beside the file; `-m` appends the
//! repetition number.

use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileNaming {
    /// The `-o` value split at '@'.
    pub targets: Vec<String>,
    pub file_per_proc: bool,
    pub unique_dir: bool,
    pub multi_file: bool,
}

impl FileNaming {
    /// Check the combination; the message names the options.
    pub fn new(
        test_file: &str,
        file_per_proc: bool,
        unique_dir: bool,
        multi_file: bool,
    ) -> Result<FileNaming, String> {
        let targets: Vec<String> = test_file.split('@').map(str::to_string).collect();
        if targets.iter().any(|t| t.is_empty()) {
            return Err(format!("-o {test_file}: empty file name"));
        }
        if targets.len() > 1 && !file_per_proc {
            return Err(format!(
                "-o {test_file}: several '@'-separated targets need file per process (-F)"
            ));
        }
        Ok(FileNaming {
            targets,
            file_per_proc,
            unique_dir,
            multi_file,
        })
    }

    /// Path of the file holding the data of `file_index` (the data rank for
    /// file per process, 0 for a shared file) in `repetition`.
    pub fn path_for(&self, file_index: u32, repetition: u32) -> PathBuf {
        let target = &self.targets[file_index as usize % self.targets.len()];
        let mut name = if self.file_per_proc {
            format!("{target}.{file_index:08}")
        } else {
            target.clone()
        };
        if self.multi_file {
            name = format!("{name}.{repetition}");
        }
        let path = PathBuf::from(name);
        if self.unique_dir && self.file_per_proc {
            let file = path
                .file_name()
                .map(|f| f.to_os_string())
                .unwrap_or_default();
            let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
            parent.join(file_index.to_string()).join(file)
        } else {
            path
        }
    }

    /// The per-rank directory created for `-u`, if any.
    pub fn unique_dir_for(&self, file_index: u32, repetition: u32) -> Option<PathBuf> {
        if self.unique_dir && self.file_per_proc {
            self.path_for(file_index, repetition)
                .parent()
                .map(Path::to_path_buf)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_and_file_per_process_names() {
        let n = FileNaming::new("/s/t", false, false, false).unwrap();
        assert_eq!(n.path_for(0, 3), PathBuf::from("/s/t"));
        let n = FileNaming::new("/s/t", true, false, false).unwrap();
        assert_eq!(n.path_for(1, 0), PathBuf::from("/s/t.00000001"));
        let n = FileNaming::new("/a/x@/b/y", true, false, true).unwrap();
        assert_eq!(n.path_for(0, 2), PathBuf::from("/a/x.00000000.2"));
        assert_eq!(n.path_for(3, 2), PathBuf::from("/b/y.00000003.2"));
        let n = FileNaming::new("/s/t", true, true, false).unwrap();
        assert_eq!(n.path_for(5, 0), PathBuf::from("/s/5/t.00000005"));
        assert_eq!(n.unique_dir_for(5, 0), Some(PathBuf::from("/s/5")));
    }

    #[test]
    fn bad_targets_are_refused_naming_the_option() {
        assert!(FileNaming::new("/a@/b", false, false, false)
            .unwrap_err()
            .contains("-F"));
        assert!(FileNaming::new("/a@", true, false, false)
            .unwrap_err()
            .contains("-o"));
    }
}
