use super::*;
use crate::config::Config;
use crate::plan::Mode;

fn ctx_of(cfg: &Config, ranks: u32) -> Context<'_> {
    Context::new(cfg, ranks, Mode::Extended, "T1")
}

fn exe(cfg: &Config, ranks: u32, phase: &str) -> String {
    command(&ctx_of(cfg, ranks), phase, &mut PlanState::default())
        .unwrap()
        .exe
}

fn config(text: &str) -> Config {
    let base = "[global]\ndatadir = /d\nresultdir = /r\ntimestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n";
    Config::parse(&format!("{base}{text}"), "t.ini").unwrap()
}

#[test]
fn the_harness_command_lines_by_hand() {
    let cfg = config("");
    // md-workbench without mdtest: 10 kIOPS * 60 s * 1000 / 4 ranks / 10 sets = 15000.
    let table = [
        ("ior-easy-write", "./ior --dataPacketType=timestamp -g -G 36989649 -k -e -o /d/ior-easy/ior_file_easy -C -Q 1 -O stoneWallingStatusFile=/r/ior-easy.stonewall -t 2m -b 9920000m -F -w -D 300 -O stoneWallingWearOut=1 -a POSIX -O saveRankPerformanceDetailsCSV=/r/ior-easy-write.csv"),
        ("ior-hard-read", "./ior --dataPacketType=timestamp -C -Q 1 -g -G=36992321 -k -e -o /d/ior-hard/file -O stoneWallingStatusFile=/r/ior-hard.stonewall -t 47008 -b 47008 -s 10000000 -r -R -a POSIX -O saveRankPerformanceDetailsCSV=/r/ior-hard-read.csv"),
        ("ior-rnd4K-easy-read", "./ior --dataPacketType=timestamp -g -G 36989649 -k -e -o /d/ior-easy/ior_file_easy -F -r -D 300 -z -z -a POSIX -O saveRankPerformanceDetailsCSV=/r/ior-rnd4K-easy-read.csv -t=4096 -b=4096 -s=10000000 -O stoneWallingWearOut=1 -C -Q 2"),
        ("mdtest-easy-delete", "./mdtest --dataPacketType=timestamp -n 1000000 -u -L -F -P -G -1888949551 -N 1 -d /d/mdtest-easy -x /r/mdtest-easy.stonewall -r --saveRankPerformanceDetails=/r/mdtest-easy-delete.csv -a POSIX"),
        ("mdtest-hard-write", "./mdtest --dataPacketType=timestamp -n 1000000 -t -w 3901 -e 3901 -P -G=-1888946879 -N 1 -F -d /d/mdtest-hard -x /r/mdtest-hard.stonewall -C -Y -W 300 --saveRankPerformanceDetails=/r/mdtest-hard-write.csv -a POSIX"),
        ("find", "./pfind /d -newer /r/timestampfile -size 3901c -name *01* -C -q 10000"),
        ("find-easy", "./pfind /d/mdtest-easy/ -name *01* -C -q 10000"),
        ("mdworkbench-bench", "./md-workbench --dataPacketType=timestamp --process-reports -a POSIX -o=/d/mdworkbench -t=0.000000 -O=1 --run-info-file=/r/mdworkbench.status -D=10 -G=755040963 -P=15000 -I=15000 -2 -R=2 -X"),
    ];
    for (phase, want) in table {
        assert_eq!(exe(&cfg, 4, phase), want, "{phase}");
    }
    assert!(command(&ctx_of(&cfg, 4), "timestamp", &mut PlanState::default()).is_none());
}

#[test]
fn backend_choice_goes_phase_then_family_then_global() {
    let cfg = config("api = MPIIO --mpiio.x\n[ior-easy]\nAPI = HDF5\n[ior-easy-read]\nAPI = MMAP --posix.odirect\n");
    let mut st = PlanState::default();
    let ctx = ctx_of(&cfg, 2);
    let read = command(&ctx, "ior-easy-read", &mut st).unwrap();
    assert!(
        read.exe.contains(" -a MMAP --posix.odirect -O "),
        "{}",
        read.exe
    );
    assert_eq!(
        read.before,
        [Note::Warning("Provided API option --posix.odirect starts with a different prefix and might be not supported - don't worry if you checked!\n".into())]
    );
    assert!(exe(&cfg, 2, "ior-easy-write").contains(" -a HDF5 -O "));
    assert!(exe(&cfg, 2, "ior-hard-write").contains(" -a MPIIO --mpiio.x -O "));
}

#[test]
fn collective_goes_phase_then_ior_hard() {
    let cfg = config("[ior-hard]\ncollective = TRUE\n[ior-hard-write]\ncollective = FALSE\n");
    assert!(!exe(&cfg, 1, "ior-hard-write").contains(" -c "));
    assert!(exe(&cfg, 1, "ior-hard-read").contains(" -R -c -a "));
}

#[test]
fn easy_layout_options_change_the_flags() {
    let cfg = config("[ior-easy]\nfilePerProc = FALSE\nuniqueDir = TRUE\n");
    let rnd = exe(&cfg, 1, "ior-rnd4K-easy-read");
    assert!(rnd.contains("ior_file_easy -u -r -D 300"), "{rnd}");
    assert!(!rnd.contains("-C -Q 2") && !rnd.contains(" -F "));
}

#[test]
fn md_workbench_sizes_follow_the_mdtest_rate_once_it_is_known() {
    let cfg = config("[debug]\nstonewall-time = 20\n");
    let ctx = ctx_of(&cfg, 4);
    let mut st = PlanState {
        mdtest_easy_rate: 2.5,
    };
    let c = command(&ctx, "mdworkbench-create", &mut st).unwrap();
    // 2.5 kIOPS * 20 s * 1000 / 4 ranks / 10 sets = 1250.
    assert_eq!(
        c.before,
        [
            Note::pair("filesPerProc", 1250),
            Note::pair("precreatePerSet", 1250)
        ]
    );
    let mut st = PlanState::default();
    let first = command(&ctx, "mdworkbench-create", &mut st).unwrap();
    let second = command(&ctx, "mdworkbench-delete", &mut st).unwrap();
    assert_eq!(
        first.before.len(),
        3,
        "the warning once: {:?}",
        first.before
    );
    assert_eq!(second.before.len(), 2);
}

#[test]
fn an_external_find_is_one_command_string() {
    let cfg = config(
        "[find]\nexternal-script = /bin/myfind\nexternal-mpi-args = mpirun -np 2\nnproc = 3\n",
    );
    let c = command(&ctx_of(&cfg, 4), "find", &mut PlanState::default()).unwrap();
    assert_eq!(
        c.exe,
        "mpirun -np 2 /bin/myfind  /d -newer /r/timestampfile -size 3901c -name \"*01*\""
    );
    assert!(c.argv.is_empty());
    assert_eq!(c.after, [Note::pair("nproc", 3)]);
    let cfg = config("[find]\nrun = FALSE\n");
    assert!(command(&ctx_of(&cfg, 4), "find", &mut PlanState::default()).is_none());
}

#[test]
fn seeds_follow_the_timestamp() {
    let cfg = config("");
    let a = Context::new(&cfg, 1, Mode::Standard, "T1");
    let b = Context::new(&cfg, 1, Mode::Standard, "T2");
    let ca = command(&a, "mdtest-easy-write", &mut PlanState::default()).unwrap();
    let cb = command(&b, "mdtest-easy-write", &mut PlanState::default()).unwrap();
    assert_ne!(ca.exe, cb.exe);
    let seed =
        |c: &PhaseCommand| c.argv[c.argv.iter().position(|w| w == "-G").unwrap() + 1].clone();
    assert_eq!(
        seed(&cb),
        crate::hash::phase_seed("mdtest-easy", "T2").to_string()
    );
}
