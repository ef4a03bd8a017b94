//! mdtest's namespace: the directory tree, how many items each rank owns,
//! where each item lives and what it is called, and whose items a rank
//! touches in each phase. Pure arithmetic, no I/O, O(1) memory per item.
//!
//! # The layout (mdtest 4.1's names)
//!
//! For iteration `i` and directory loop `l` the test directory is
//! `<root>/test-dir.<i>-<l>`. It holds one tree (or, with `-u`, one tree per
//! rank) of [`Tree::num_dirs`] directories numbered like a heap: the root is
//! node 0 and the children of node `n` are `b n + 1 ..= b n + b`. Node `n` of
//! the tree named `T` is the directory `T.<n>`, nested under its ancestors:
//! `T.0/T.1/T.4/...`. `T` is `mdtest_tree`, or `mdtest_tree.<owner>` with
//! `-u`.
//!
//! Every directory that holds items (all of them, or only the leaves with
//! `-L`) holds `I` items; item `k` of node `n` is number `n I + k` and is
//! called `dir.mdtest.<rank>.<number>` / `file.mdtest.<rank>.<number>`
//! (`mdtest.shared.` instead of `mdtest.<rank>.` with `-S`). A rank's items
//! are indexed `0 .. items_per_rank` in creation order: loop by loop, node
//! by node in heap order, item by item.
//!
//! # Who touches what
//!
//! With stride `s` (`-N`) and `n` ranks, rank `r` creates the items of owner
//! `r`, stats (and renames) those of owner `(r + s) mod n`, reads those of
//! `(r + 2 s) mod n` and removes those of `(r + 3 s) mod n`. With `-u` the
//! items of owner `o` live in the tree named after rank `(o + s) mod n`, which
//! is mdtest 4.1's placement for a flat tree; we apply it at every depth
//! (mdtest 4.1 mixes two rank numbers in the paths below the root there and
//! cannot find its own items).

use std::fmt;

/// Errors for trees and item counts that cannot be planned; messages name
/// the mdtest option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MdPlanError {
    /// `-b 0` with a tree deeper than the root.
    ZeroBranching { depth: u32 },
    /// The tree has more directories than 64 bits count.
    TreeTooLarge { branch: u32, depth: u32 },
    /// `-n` is not a multiple of `-I`.
    ItemsNotMultiple { items: u64, items_per_dir: u64 },
    /// The item count overflows 64 bits.
    TooManyItems,
    /// `-n` asked for items but the tree has more item directories than items.
    FewerItemsThanDirs { items: u64, dirs: u64 },
    /// No ranks.
    ZeroTasks,
}

impl fmt::Display for MdPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MdPlanError::ZeroBranching { depth } => write!(
                f,
                "branching factor (-b 0) must be at least 1 for a tree of depth {depth} (-z)"
            ),
            MdPlanError::TreeTooLarge { branch, depth } => write!(
                f,
                "a tree with branching factor {branch} (-b) and depth {depth} (-z) has too many directories"
            ),
            MdPlanError::ItemsNotMultiple {
                items,
                items_per_dir,
            } => write!(
                f,
                "items per rank (-n {items}) must be a multiple of items per directory (-I {items_per_dir})"
            ),
            MdPlanError::TooManyItems => write!(f, "the number of items overflows 64 bits"),
            MdPlanError::FewerItemsThanDirs { items, dirs } => write!(
                f,
                "-n {items} spread over the {dirs} directories of the tree leaves no item per directory"
            ),
            MdPlanError::ZeroTasks => write!(f, "no ranks to run on"),
        }
    }
}

impl std::error::Error for MdPlanError {}

/// The directory tree: branching factor `b` (`-b`) and depth `z` (`-z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tree {
    branch: u32,
    depth: u32,
    num_dirs: u64,
    leaves: u64,
}

impl Tree {
    /// A tree of `depth` levels below the root; `branch` is ignored when
    /// `depth` is 0 (the tree is just its root).
    pub fn new(branch: u32, depth: u32) -> Result<Tree, MdPlanError> {
        if depth == 0 {
            return Ok(Tree {
                branch: branch.max(1),
                depth,
                num_dirs: 1,
                leaves: 1,
            });
        }
        if branch == 0 {
            return Err(MdPlanError::ZeroBranching { depth });
        }
        let too_large = MdPlanError::TreeTooLarge { branch, depth };
        let mut level: u64 = 1;
        let mut total: u64 = 1;
        for _ in 0..depth {
            level = level
                .checked_mul(u64::from(branch))
                .ok_or(too_large.clone())?;
            total = total.checked_add(level).ok_or(too_large.clone())?;
        }
        Ok(Tree {
            branch,
            depth,
            num_dirs: total,
            leaves: level,
        })
    }

    pub fn branch(&self) -> u32 {
        self.branch
    }
    pub fn depth(&self) -> u32 {
        self.depth
    }
    /// Directories in the tree, the root included.
    pub fn num_dirs(&self) -> u64 {
        self.num_dirs
    }
    /// Directories at the deepest level (`b^z`).
    pub fn num_leaves(&self) -> u64 {
        self.leaves
    }
    /// Heap number of the first leaf; the leaves are the last nodes.
    pub fn first_leaf(&self) -> u64 {
        self.num_dirs - self.leaves
    }
    /// The parent of `node` (None for the root).
    pub fn parent(&self, node: u64) -> Option<u64> {
        (node > 0).then(|| (node - 1) / u64::from(self.branch))
    }
}

/// How many items a rank owns and where they go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    tree: Tree,
    items_per_dir: u64,
    leaf_only: bool,
    loops: u64,
}

/// The numbers mdtest derives from `-n`, `-I`, `-b`, `-z` and `-L`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeRequest {
    /// `-n`: items per rank (0: derive from `-I`).
    pub items: u64,
    /// `-I`: items per directory (0: derive from `-n`).
    pub items_per_dir: u64,
    pub branch: u32,
    pub depth: u32,
    /// `-L`: items only in the leaves.
    pub leaf_only: bool,
    /// `-u`: with `-n` and `-I` both given mdtest uses one directory loop.
    pub unique_dir: bool,
}

impl Shape {
    /// mdtest 4.1's rules: `-I` alone fills every item directory with `I`
    /// items; `-n` alone spreads `n` items evenly over the item directories
    /// (rounding down, see [`Shape::truncated`]); both give `n / I`
    /// directory loops (separate test directories) of `I` items in every
    /// item directory.
    pub fn new(req: ShapeRequest) -> Result<Shape, MdPlanError> {
        let tree = Tree::new(req.branch, req.depth)?;
        let item_dirs = if req.leaf_only {
            tree.num_leaves()
        } else {
            tree.num_dirs()
        };
        let (items_per_dir, loops) = if req.items_per_dir > 0 {
            if req.items > 0 && !req.unique_dir {
                if !req.items.is_multiple_of(req.items_per_dir) {
                    return Err(MdPlanError::ItemsNotMultiple {
                        items: req.items,
                        items_per_dir: req.items_per_dir,
                    });
                }
                (req.items_per_dir, req.items / req.items_per_dir)
            } else {
                (req.items_per_dir, 1)
            }
        } else {
            let per_dir = req.items / item_dirs;
            if req.items > 0 && per_dir == 0 {
                return Err(MdPlanError::FewerItemsThanDirs {
                    items: req.items,
                    dirs: item_dirs,
                });
            }
            (per_dir, 1)
        };
        let shape = Shape {
            tree,
            items_per_dir,
            leaf_only: req.leaf_only,
            loops,
        };
        shape
            .items_per_dir
            .checked_mul(item_dirs)
            .and_then(|v| v.checked_mul(shape.loops))
            .ok_or(MdPlanError::TooManyItems)?;
        Ok(shape)
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }
    pub fn items_per_dir(&self) -> u64 {
        self.items_per_dir
    }
    pub fn leaf_only(&self) -> bool {
        self.leaf_only
    }
    /// Directory loops: separate `test-dir.<i>-<l>` directories per iteration.
    pub fn loops(&self) -> u64 {
        self.loops
    }
    /// Nodes that hold items.
    pub fn item_dirs(&self) -> u64 {
        if self.leaf_only {
            self.tree.num_leaves()
        } else {
            self.tree.num_dirs()
        }
    }
    /// First node that holds items.
    pub fn first_item_node(&self) -> u64 {
        if self.leaf_only {
            self.tree.first_leaf()
        } else {
            0
        }
    }
    /// Items one rank owns in one loop.
    pub fn items_per_loop(&self) -> u64 {
        self.items_per_dir * self.item_dirs()
    }
    /// Items one rank owns in all (exact; never overflows, checked at construction).
    pub fn items_per_rank(&self) -> u64 {
        self.items_per_loop() * self.loops
    }
    /// When `-n` was spread over the directories: the items that did not
    /// fit (mdtest drops them too).
    pub fn truncated(&self, requested: u64) -> u64 {
        if self.loops == 1 {
            requested.saturating_sub(self.items_per_rank())
        } else {
            0
        }
    }

    /// Where a rank's item `index` lives. Panics-free: indices beyond
    /// [`Shape::items_per_rank`] map past the last loop (callers never ask).
    pub fn item(&self, index: u64) -> Item {
        let per_loop = self.items_per_loop().max(1);
        let per_dir = self.items_per_dir.max(1);
        let lp = index / per_loop;
        let k = index % per_loop;
        let node = self.first_item_node() + k / per_dir;
        Item {
            loop_index: lp,
            node,
            number: node * self.items_per_dir + k % per_dir,
        }
    }
}

/// One item of a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Item {
    /// Directory loop (which `test-dir.<i>-<l>`).
    pub loop_index: u64,
    /// Heap number of the directory that holds it.
    pub node: u64,
    /// The number in its name: `node * items_per_dir + k`.
    pub number: u64,
}

/// Files or directories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Dir,
    File,
}

impl ItemKind {
    fn prefix(self) -> &'static str {
        match self {
            ItemKind::Dir => "dir.",
            ItemKind::File => "file.",
        }
    }
}

/// The phases that pick whose items a rank touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Create,
    Stat,
    Read,
    Remove,
    /// Renames the items it stats.
    Rename,
}

impl Access {
    /// How many strides from the rank the owner is.
    fn shift(self) -> u64 {
        match self {
            Access::Create => 0,
            Access::Stat | Access::Rename => 1,
            Access::Read => 2,
            Access::Remove => 3,
        }
    }
}

/// Everything about names that does not depend on the item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naming {
    /// The `-d` directories (split at '@'); never empty.
    pub roots: Vec<String>,
    pub num_tasks: u32,
    /// `-u`: one tree per rank.
    pub unique_dir: bool,
    /// `-S`: every rank uses the same file names.
    pub shared_file: bool,
    /// `-N`, already multiplied by tasks per node where mdtest does that.
    pub stride: u32,
}

/// Whose items: a rank, or the shared names of `-S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    Rank(u32),
    Shared,
}

impl Naming {
    pub fn new(
        roots: Vec<String>,
        num_tasks: u32,
        unique_dir: bool,
        shared_file: bool,
        stride: u32,
    ) -> Result<Naming, MdPlanError> {
        if num_tasks == 0 {
            return Err(MdPlanError::ZeroTasks);
        }
        let roots = if roots.is_empty() {
            vec![".".to_string()]
        } else {
            roots
        };
        Ok(Naming {
            roots,
            num_tasks,
            unique_dir,
            shared_file,
            stride,
        })
    }

    /// The owner whose items `rank` accesses in `access`.
    pub fn owner(&self, rank: u32, access: Access) -> Owner {
        if self.shared_file {
            return Owner::Shared;
        }
        let n = u64::from(self.num_tasks);
        let r = (u64::from(rank) + access.shift() * u64::from(self.stride)) % n;
        Owner::Rank(r as u32)
    }

    /// The rank whose tree holds `owner`'s items (`-u`), or None for the
    /// shared tree.
    pub fn tree_of(&self, owner: Owner) -> Option<u32> {
        match owner {
            Owner::Rank(o) if self.unique_dir => {
                let n = u64::from(self.num_tasks);
                Some(((u64::from(o) + u64::from(self.stride)) % n) as u32)
            }
            _ => None,
        }
    }

    /// The `-d` directory that holds the tree of `tree_rank` (None: the
    /// shared tree, always in the first directory).
    pub fn root_of(&self, tree_rank: Option<u32>) -> &str {
        let i = tree_rank.map_or(0, |r| r as usize % self.roots.len());
        &self.roots[i]
    }

    /// `<root>/test-dir.<iteration>-<loop>` of the `-d` directory `root`.
    pub fn test_dir(root: &str, iteration: u32, loop_index: u64) -> String {
        let mut s = String::with_capacity(root.len() + 24);
        s.push_str(root);
        if !s.ends_with('/') {
            s.push('/');
        }
        s.push_str("test-dir.");
        push_u64(&mut s, u64::from(iteration));
        s.push('-');
        push_u64(&mut s, loop_index);
        s
    }

    /// Base name of the directories of a tree (`mdtest_tree`, `mdtest_tree.<r>`).
    pub fn tree_base(tree_rank: Option<u32>) -> String {
        match tree_rank {
            Some(r) => format!("mdtest_tree.{r}"),
            None => "mdtest_tree".to_string(),
        }
    }

    /// The ranks whose trees exist: every rank with `-u`, else one shared tree.
    pub fn trees(&self) -> Vec<Option<u32>> {
        if self.unique_dir {
            (0..self.num_tasks).map(Some).collect()
        } else {
            vec![None]
        }
    }
}

/// Appends the decimal digits of `v` (no allocation).
pub fn push_u64(s: &mut String, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // ASCII digits are always valid UTF-8.
    s.push_str(std::str::from_utf8(&digits[i..]).unwrap_or("0"));
}

/// Writes `<test dir>/<T>.0/<T>.<a>/.../<T>.<node>` into `out` (cleared first).
pub fn node_path(out: &mut String, test_dir: &str, base: &str, tree: &Tree, node: u64) {
    out.clear();
    out.push_str(test_dir);
    let mut chain = [0u64; 64];
    let mut len = 0usize;
    let mut cur = node;
    // Ancestors below the root, deepest first (bounded by the tree depth;
    // depths beyond 64 levels fall back to a heap vector).
    let mut spill: Vec<u64> = Vec::new();
    while cur > 0 {
        if len < chain.len() {
            chain[len] = cur;
            len += 1;
        } else {
            spill.push(cur);
        }
        cur = tree.parent(cur).unwrap_or(0);
    }
    out.push('/');
    out.push_str(base);
    out.push_str(".0");
    for &n in spill.iter().rev().chain(chain[..len].iter().rev()) {
        out.push('/');
        out.push_str(base);
        out.push('.');
        push_u64(out, n);
    }
}

/// The paths of one owner's items, written into a reused buffer. The
/// directory part is rebuilt only when the directory changes, so the cost
/// per item is appending one number.
#[derive(Clone, Debug)]
pub struct ItemPaths {
    shape: Shape,
    kind: ItemKind,
    iteration: u32,
    root: String,
    base: String,
    name_prefix: String,
    buf: String,
    dir_len: usize,
    cached: Option<(u64, u64)>,
}

impl ItemPaths {
    pub fn new(
        shape: &Shape,
        naming: &Naming,
        owner: Owner,
        kind: ItemKind,
        iteration: u32,
    ) -> ItemPaths {
        let tree_rank = naming.tree_of(owner);
        let mut name_prefix = String::from(kind.prefix());
        match owner {
            Owner::Shared => name_prefix.push_str("mdtest.shared."),
            Owner::Rank(r) => {
                name_prefix.push_str("mdtest.");
                push_u64(&mut name_prefix, u64::from(r));
                name_prefix.push('.');
            }
        }
        ItemPaths {
            shape: *shape,
            kind,
            iteration,
            root: naming.root_of(tree_rank).to_string(),
            base: Naming::tree_base(tree_rank),
            name_prefix,
            buf: String::with_capacity(256),
            dir_len: 0,
            cached: None,
        }
    }

    pub fn kind(&self) -> ItemKind {
        self.kind
    }

    /// The path of item `index` (valid until the next call).
    pub fn path(&mut self, index: u64) -> &str {
        let item = self.shape.item(index);
        self.path_of(item)
    }

    /// The path of `item`.
    pub fn path_of(&mut self, item: Item) -> &str {
        if self.cached != Some((item.loop_index, item.node)) {
            let td = Naming::test_dir(&self.root, self.iteration, item.loop_index);
            node_path(&mut self.buf, &td, &self.base, self.shape.tree(), item.node);
            self.buf.push('/');
            self.dir_len = self.buf.len();
            self.cached = Some((item.loop_index, item.node));
        }
        self.buf.truncate(self.dir_len);
        self.buf.push_str(&self.name_prefix);
        push_u64(&mut self.buf, item.number);
        &self.buf
    }
}

/// Directories of the tree named after `tree_rank` in one test directory,
/// in creation order (heap order: every parent before its children; remove
/// them in reverse).
pub fn tree_dirs(
    shape: &Shape,
    naming: &Naming,
    tree_rank: Option<u32>,
    iteration: u32,
    loop_index: u64,
) -> impl Iterator<Item = String> {
    let td = Naming::test_dir(naming.root_of(tree_rank), iteration, loop_index);
    let base = Naming::tree_base(tree_rank);
    let tree = *shape.tree();
    (0..tree.num_dirs()).map(move |node| {
        let mut s = String::new();
        node_path(&mut s, &td, &base, &tree, node);
        s
    })
}

/// The path of tree node `node` (for one-off use; see [`tree_dirs`]).
pub fn tree_dir(
    shape: &Shape,
    naming: &Naming,
    tree_rank: Option<u32>,
    iteration: u32,
    loop_index: u64,
    node: u64,
) -> String {
    let td = Naming::test_dir(naming.root_of(tree_rank), iteration, loop_index);
    let mut s = String::new();
    node_path(
        &mut s,
        &td,
        &Naming::tree_base(tree_rank),
        shape.tree(),
        node,
    );
    s
}

/// The order in which the rename phase moves items `0 .. count`: a chain
/// that ends with every name still present. Step 0 moves item 0 aside to
/// `<item 0>-XX`; step `i` (1 ≤ i ≤ count − 2) moves item `i` onto the name
/// of item `i − 1`; the last step moves `<item 0>-XX` onto item `count − 2`.
/// `count` renames in all (none when `count` < 2), as mdtest 4.1 does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameStep {
    /// Rename item `from` to item `from`'s name with "-XX" appended.
    Aside { from: u64 },
    /// Rename item `from` to item `to`'s name.
    Shift { from: u64, to: u64 },
    /// Rename the set-aside item to item `to`'s name.
    Back { to: u64 },
}

/// Step `i` of the rename chain over `count` items.
pub fn rename_step(i: u64, count: u64) -> RenameStep {
    if i == 0 {
        RenameStep::Aside { from: 0 }
    } else if i + 1 == count {
        RenameStep::Back { to: count - 2 }
    } else {
        RenameStep::Shift { from: i, to: i - 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(n: u64, i: u64, b: u32, z: u32, leaf: bool) -> Shape {
        Shape::new(ShapeRequest {
            items: n,
            items_per_dir: i,
            branch: b,
            depth: z,
            leaf_only: leaf,
            unique_dir: false,
        })
        .unwrap()
    }

    #[test]
    fn tree_sizes_follow_mdtest() {
        assert_eq!(Tree::new(1, 0).unwrap().num_dirs(), 1);
        assert_eq!(Tree::new(1, 3).unwrap().num_dirs(), 4);
        let t = Tree::new(3, 2).unwrap();
        assert_eq!((t.num_dirs(), t.num_leaves(), t.first_leaf()), (13, 9, 4));
        assert_eq!(t.parent(4), Some(1));
        assert_eq!(t.parent(12), Some(3));
        assert_eq!(t.parent(0), None);
        assert!(matches!(
            Tree::new(0, 2),
            Err(MdPlanError::ZeroBranching { .. })
        ));
        assert!(matches!(
            Tree::new(1000, 40),
            Err(MdPlanError::TreeTooLarge { .. })
        ));
    }

    #[test]
    fn reference_counts() {
        // mdtest-tree-leaf.txt: -z 2 -b 3 -I 10 -L on 2 ranks -> 180 items.
        assert_eq!(shape(0, 10, 3, 2, true).items_per_rank() * 2, 180);
        // mdtest-basic.txt: -n 500 -> 500 per rank.
        assert_eq!(shape(500, 0, 1, 0, false).items_per_rank(), 500);
        // -n 10 over 4 directories: 2 each, 2 dropped.
        let s = shape(10, 0, 3, 1, false);
        assert_eq!(
            (s.items_per_dir(), s.items_per_rank(), s.truncated(10)),
            (2, 8, 2)
        );
        // -n 20 -I 5 -z 1 -b 2: 4 loops of 5 in each of 3 dirs.
        let s = shape(20, 5, 2, 1, false);
        assert_eq!((s.loops(), s.items_per_rank()), (4, 60));
    }

    #[test]
    fn item_paths_match_mdtest_names() {
        let s = shape(0, 2, 2, 2, false);
        let naming = Naming::new(vec!["/d".into()], 2, false, false, 0).unwrap();
        let mut p = ItemPaths::new(&s, &naming, Owner::Rank(1), ItemKind::File, 3);
        assert_eq!(p.path(0), "/d/test-dir.3-0/mdtest_tree.0/file.mdtest.1.0");
        // Node 5 (second child of node 2): item numbers 10 and 11.
        assert_eq!(
            p.path(11),
            "/d/test-dir.3-0/mdtest_tree.0/mdtest_tree.2/mdtest_tree.5/file.mdtest.1.11"
        );
        let u = Naming::new(vec!["/a/".into(), "/b".into()], 4, true, false, 0).unwrap();
        let mut p = ItemPaths::new(
            &shape(3, 0, 1, 0, false),
            &u,
            Owner::Rank(3),
            ItemKind::Dir,
            0,
        );
        assert_eq!(p.path(2), "/b/test-dir.0-0/mdtest_tree.3.0/dir.mdtest.3.2");
        let sh = Naming::new(vec!["/s".into()], 4, false, true, 0).unwrap();
        let mut p = ItemPaths::new(
            &shape(3, 0, 1, 0, false),
            &sh,
            sh.owner(2, Access::Stat),
            ItemKind::File,
            0,
        );
        assert_eq!(
            p.path(1),
            "/s/test-dir.0-0/mdtest_tree.0/file.mdtest.shared.1"
        );
    }

    #[test]
    fn leaf_only_items_skip_inner_nodes() {
        let s = shape(0, 10, 3, 2, true);
        assert_eq!(
            s.item(0),
            Item {
                loop_index: 0,
                node: 4,
                number: 40
            }
        );
        assert_eq!(
            s.item(89),
            Item {
                loop_index: 0,
                node: 12,
                number: 129
            }
        );
    }

    #[test]
    fn stride_shifts_owner_per_phase() {
        let n = Naming::new(vec!["/d".into()], 4, true, false, 1).unwrap();
        assert_eq!(n.owner(0, Access::Create), Owner::Rank(0));
        assert_eq!(n.owner(0, Access::Stat), Owner::Rank(1));
        assert_eq!(n.owner(3, Access::Read), Owner::Rank(1));
        assert_eq!(n.owner(1, Access::Remove), Owner::Rank(0));
        // Owner 0's items live in rank 1's tree.
        assert_eq!(n.tree_of(Owner::Rank(0)), Some(1));
    }

    #[test]
    fn rename_chain_keeps_every_name() {
        for count in 2..8u64 {
            // Simulate: names[i] holds the original index now stored there.
            let mut names: Vec<Option<u64>> = (0..count).map(Some).collect();
            let mut aside = None;
            for i in 0..count {
                match rename_step(i, count) {
                    RenameStep::Aside { from } => aside = names[from as usize].take(),
                    RenameStep::Shift { from, to } => {
                        assert!(names[to as usize].is_none());
                        names[to as usize] = names[from as usize].take();
                    }
                    RenameStep::Back { to } => {
                        assert!(names[to as usize].is_none());
                        names[to as usize] = aside.take();
                    }
                }
            }
            assert!(
                names.iter().all(Option::is_some),
                "count {count}: {names:?}"
            );
        }
    }

    #[test]
    fn numbers_print_like_printf() {
        for v in [0u64, 7, 10, 12345, u64::MAX] {
            let mut s = String::new();
            push_u64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }
}
