//! The compile stage: each call site of a parsed expression resolved once
//! against an engine's library, whose function set is fixed when the engine
//! is built. A site keeps the library overloads that can take its
//! arguments (arity, form, literal and keyword arguments, laziness), so an
//! evaluation skips the lookup by name and the static filtering. Functions
//! a host registers in a context may still shadow the library: a call
//! whose name some context layer defines (or hides) is resolved as before,
//! and so is every call the site cannot decide alone (named or omitted
//! arguments, keyword-only parameters, an error to report).

use super::kernel::Kernel;
use super::node::{CodeArg, CodeArgs, Node, NodeId, Op, VarRef};
use super::resolve::{more_specific, param_for, pre_filter};
use super::site::{DirectKeySite, DirectSite, Site, SiteCand};
use crate::error::{Error, ErrorKind};
use crate::func::context::{Context, NameSet};
use crate::func::library::Library;
use crate::func::{mask, DirectLazy, PType};
use crate::parser::{Arg, Expr, ExprKind};
use crate::runtime::{Options, Runtime};
use smallvec::SmallVec;
use std::sync::Arc;

/// An expression compiled for one engine's library.
pub struct Compiled {
    /// Keeps the nodes (whose addresses key `sites`) alive.
    _root: Arc<Expr>,
    library: Arc<Library>,
    sites: Vec<Site>,
    /// The site of each call node of the tree, by the node's address (for
    /// the tree walk).
    by_node: ahash::AHashMap<usize, u32>,
    /// The tree as code (`code.rs`): nodes that name their site and their
    /// arguments' nodes, evaluated without lookups.
    code: Vec<Node>,
    /// The kernel of each argument node that has one (`kernel.rs`), by
    /// node.
    kernels: Vec<Option<Kernel>>,
    /// Calls of functions the library does not define, in order: the
    /// name, whether it is a method call, and its position.
    undefined: Vec<(Arc<str>, bool, usize)>,
    /// Functions the text defines when it runs (`def(name, ...)` with a
    /// literal name): calls of them are not undefined.
    defined: Vec<Arc<str>>,
    /// The text defines a function whose name is known only when it runs:
    /// no call can be said to be undefined.
    defines_unknown: bool,
}

/// The library function that defines a function when it runs.
const DEF: &str = "def";

fn key(e: &Expr) -> usize {
    e as *const Expr as usize
}

impl Compiled {
    /// Compile `root` against `library` (with the engine's options).
    pub fn new(root: Arc<Expr>, library: Arc<Library>, opts: &Options) -> Compiled {
        let rt = Runtime::new(opts.clone());
        let mut c = Compiled {
            _root: root.clone(),
            library,
            sites: Vec::new(),
            by_node: ahash::AHashMap::new(),
            code: Vec::new(),
            kernels: Vec::new(),
            undefined: Vec::new(),
            defined: Vec::new(),
            defines_unknown: false,
        };
        c.walk(&root, &rt);
        c.code_for(&root, Some(&root));
        c.kernels = (0..c.code.len() as NodeId)
            .map(|id| {
                c.code[id as usize]
                    .arc
                    .as_ref()
                    .and_then(|_| Kernel::of(&c.code, &c.sites, id, &c.library))
            })
            .collect();
        c
    }

    /// The kernel of argument node `i`, if it has one.
    pub(crate) fn kernel(&self, i: NodeId) -> Option<&Kernel> {
        self.kernels.get(i as usize)?.as_ref()
    }

    /// The library it was compiled for.
    pub(crate) fn library(&self) -> &Arc<Library> {
        &self.library
    }

    /// The expression's syntax tree.
    pub fn tree(&self) -> &Arc<Expr> {
        &self._root
    }

    /// Whether this was compiled for `library`.
    pub fn is_for(&self, library: &Arc<Library>) -> bool {
        Arc::ptr_eq(&self.library, library)
    }

    pub(crate) fn site(&self, e: &Expr) -> Option<&Site> {
        if self.sites.is_empty() {
            return None;
        }
        self.by_node.get(&key(e)).map(|i| &self.sites[*i as usize])
    }

    /// The site of a code node.
    #[inline]
    pub(crate) fn site_at(&self, i: u32) -> &Site {
        &self.sites[i as usize]
    }

    /// Site `i` of a call of `name` from `ctx`, when the node has one and
    /// no context layer up the chain redefines the name.
    #[inline]
    pub(crate) fn site_of(&self, i: Option<u32>, ctx: &Context, name: &str) -> Option<&Site> {
        let site = self.site_at(i?);
        ctx.sees_library_for(name, site.name, &self.library)
            .then_some(site)
    }

    /// Code node `i` (the root is the last one).
    #[inline]
    pub(crate) fn node(&self, i: NodeId) -> &Node {
        &self.code[i as usize]
    }

    /// The root's code node.
    pub(crate) fn root_node(&self) -> NodeId {
        self.code.len() as NodeId - 1
    }

    /// The code of `e` and its subtrees, the node's index. `arc`: the
    /// node's shared handle when it has one (an argument, the root).
    fn code_for(&mut self, e: &Expr, arc: Option<&Arc<Expr>>) -> NodeId {
        let op = match &e.kind {
            ExprKind::Const(l) => Op::Const(l.clone()),
            ExprKind::Keyword(k) => Op::Keyword(k.clone()),
            ExprKind::Var(name) => Op::Var(VarRef::of(name)),
            ExprKind::Wrap(inner) => return self.code_for(inner, arc),
            ExprKind::Call { name, args, .. } => Op::Call {
                name: name.clone(),
                site: self.site_index(e),
                args: self.code_args(args),
            },
            ExprKind::Method {
                recv,
                name,
                args,
                safe,
                ..
            } => Op::Method {
                recv: self.code_for(recv, None),
                name: name.clone(),
                site: self.site_index(e),
                args: self.code_args(args),
                safe: *safe,
            },
            ExprKind::Dot {
                recv, rhs, safe, ..
            } => Op::Dot {
                recv: self.code_for(recv, None),
                rhs: self.code_for(rhs, Some(rhs)),
                site: self.site_index(e),
                safe: *safe,
            },
        };
        self.code.push(Node {
            at: e.position(),
            arc: arc.cloned(),
            op,
        });
        self.code.len() as NodeId - 1
    }

    fn site_index(&self, e: &Expr) -> Option<u32> {
        self.by_node.get(&key(e)).copied()
    }

    fn code_args(&mut self, args: &[Arg]) -> CodeArgs {
        let tree: Arc<[Arg]> = args.to_vec().into();
        if args.iter().all(|a| matches!(a, Arg::Pos(_))) {
            let pos = args
                .iter()
                .filter_map(|a| match a {
                    Arg::Pos(x) => Some(self.code_for(x, Some(x))),
                    _ => None,
                })
                .collect();
            return CodeArgs {
                pos: Some(pos),
                mixed: Box::default(),
                tree,
            };
        }
        let mixed = args
            .iter()
            .map(|a| match a {
                Arg::Pos(x) => CodeArg::Pos(self.code_for(x, Some(x))),
                Arg::Named(k, v) => {
                    CodeArg::Named(self.code_for(k, Some(k)), self.code_for(v, Some(v)))
                }
                Arg::Omitted => CodeArg::Omitted,
            })
            .collect();
        CodeArgs {
            pos: None,
            mixed,
            tree,
        }
    }

    /// Calls whose name the library does not define in the form used
    /// (`no_function` / `no_method` errors with the call's position): when
    /// the engine's library is the whole function set (no context or
    /// session functions, no host-object methods), these calls fail if
    /// they are reached.
    ///
    /// A function the text itself defines (`def(name, body)`) is not
    /// undefined; when the name `def` is given is computed, nothing is
    /// reported.
    pub fn undefined(&self) -> Vec<Error> {
        if self.defines_unknown {
            return Vec::new();
        }
        let error = |(name, method, at): &(Arc<str>, bool, usize)| {
            let (kind, what) = match method {
                true => (ErrorKind::NoMethod, "method"),
                false => (ErrorKind::NoFunction, "function"),
            };
            let mut err = Error::new(kind, format!("Unknown {what} \"{name}\""));
            err.position = Some(*at);
            err
        };
        let defined =
            |(name, method, _): &&(Arc<str>, bool, usize)| !*method && self.defined.contains(name);
        self.undefined
            .iter()
            .filter(|u| !defined(u))
            .map(error)
            .collect()
    }

    fn walk(&mut self, e: &Expr, rt: &Runtime) {
        match &e.kind {
            ExprKind::Call { name, args, .. } => {
                self.call_site(e, name, args, false, rt);
                self.walk_args(args, rt);
            }
            ExprKind::Method {
                recv, name, args, ..
            } => {
                self.walk(recv, rt);
                self.call_site(e, name, args, true, rt);
                self.walk_args(args, rt);
            }
            ExprKind::Dot { recv, rhs, .. } => {
                self.walk(recv, rt);
                self.site_for(e, "#operator_.", &[None, Some(rhs)], false, rt);
                self.walk(rhs, rt);
            }
            ExprKind::Wrap(inner) => self.walk(inner, rt),
            ExprKind::Const(_) | ExprKind::Keyword(_) | ExprKind::Var(_) => {}
        }
    }

    fn walk_args(&mut self, args: &[Arg], rt: &Runtime) {
        for a in args {
            match a {
                Arg::Pos(x) => self.walk(x, rt),
                Arg::Named(k, v) => {
                    self.walk(k, rt);
                    self.walk(v, rt);
                }
                Arg::Omitted => {}
            }
        }
    }

    fn call_site(&mut self, e: &Expr, name: &str, args: &[Arg], method: bool, rt: &Runtime) {
        if name == DEF && !method {
            self.note_definition(args);
        }
        let defined = self.library.layers().iter().any(|l| {
            l.get(name).is_some_and(|d| {
                d.iter().any(|f| {
                    if method {
                        f.form.method()
                    } else {
                        f.form.function()
                    }
                })
            })
        });
        if !defined {
            self.undefined.push((Arc::from(name), method, e.position()));
            return;
        }
        // A receiver is a value known only when the call runs.
        let mut pos: SmallVec<[Option<&Arc<Expr>>; 4]> = SmallVec::new();
        if method {
            pos.push(None);
        }
        for a in args {
            match a {
                Arg::Pos(x) => pos.push(Some(x)),
                _ => return,
            }
        }
        self.site_for(e, name, &pos, method, rt);
    }

    /// Record the name a `def(name, body)` call gives its function.
    fn note_definition(&mut self, args: &[Arg]) {
        let name = match args.first() {
            Some(Arg::Pos(x)) => match &x.kind {
                ExprKind::Keyword(k) => Some(k.clone()),
                ExprKind::Const(l) => l.as_str().map(Arc::from),
                _ => None,
            },
            _ => None,
        };
        match name {
            Some(n) => self.defined.push(n),
            None => self.defines_unknown = true,
        }
    }

    /// Keep the site's overloads: those of the library's layers (down to
    /// the first that hides the rest) whose form, arity and parameters fit
    /// the arguments known now (`None`: a value known when the call runs).
    fn site_for(
        &mut self,
        e: &Expr,
        name: &str,
        pos: &[Option<&Arc<Expr>>],
        method: bool,
        rt: &Runtime,
    ) {
        if pos.len() > 64 {
            return;
        }
        let mut layers: SmallVec<[SmallVec<[SiteCand; 4]>; 2]> = SmallVec::new();
        for layer in self.library.layers() {
            let mut kept = SmallVec::new();
            for f in layer.get(name).unwrap_or(&[]) {
                let form_ok = if method {
                    f.form.method()
                } else {
                    f.form.function()
                };
                if !form_ok {
                    continue;
                }
                // Resolution by keyword or with keyword-only parameters is
                // left to the general path.
                if !f.kwonly.is_empty() || f.nokw {
                    return;
                }
                if let Some(lazy) = pre_filter(f, pos, rt) {
                    let masks = (0..pos.len())
                        .map(|i| param_for(f, i).map_or(0, |p| p.ty.mask(p.nullable)))
                        .collect();
                    kept.push(SiteCand {
                        def: f.clone(),
                        lazy,
                        masks,
                    });
                }
            }
            // Overloads are kept as bits of a word.
            if kept.len() > 64 {
                return;
            }
            if !kept.is_empty() {
                layers.push(kept);
            }
            if layer.hides_below(name) {
                break;
            }
        }
        let fixed = pos.iter().all(Option::is_some);
        let lazies = layers.iter().flatten().map(|c| c.lazy);
        let agree = lazies.clone().all(|lz| Some(lz) == lazies.clone().next());
        // An error (no overload fits, laziness disagrees) is left to the
        // general path, which reports it.
        if layers.is_empty() || (fixed && !agree) {
            return;
        }
        let direct = if fixed && agree {
            direct_site(&layers)
        } else {
            None
        };
        let direct_key = match pos {
            [None, Some(rhs)] if matches!(rhs.kind, ExprKind::Keyword(_)) => {
                direct_key_site(&layers)
            }
            _ => None,
        };
        let direct_lazy = match pos {
            [Some(_), Some(_)] => direct_lazy_site(&layers),
            _ => None,
        };
        self.by_node.insert(key(e), self.sites.len() as u32);
        self.sites.push(Site {
            name: NameSet::of(name),
            layers,
            fixed,
            direct,
            direct_key,
            direct_lazy,
        });
    }
}

/// The kinds of values at each of two positions for which `best` (in layer
/// `at`) is the overload picked: those it takes that no overload of an
/// earlier layer takes, nor one of its layer that is not less specific.
fn winning_kinds(
    layers: &[SmallVec<[SiteCand; 4]>],
    at: usize,
    best: &SiteCand,
    of: [u32; 2],
) -> [u32; 2] {
    let mut kinds = [best.masks[0] & of[0], best.masks[1] & of[1]];
    for (i, layer) in layers[..=at].iter().enumerate() {
        for c in layer {
            let loses = i == at && more_specific(&best.masks, &c.masks);
            if std::ptr::eq(c, best) || loses {
                continue;
            }
            kinds[0] &= !c.masks[0];
            kinds[1] &= !c.masks[1];
        }
    }
    kinds
}

/// The overload the resolver picks for two values of kinds `kinds` (a
/// [`mask`] bit each): the most specific of the first layer with one that
/// takes them; none when none does or two are as specific.
fn picked(layers: &[SmallVec<[SiteCand; 4]>], kinds: [u32; 2]) -> Option<&SiteCand> {
    for layer in layers {
        let mut winner: Option<&SiteCand> = None;
        for c in layer {
            if c.masks[0] & kinds[0] == 0 || c.masks[1] & kinds[1] == 0 {
                continue;
            }
            winner = match winner {
                None => Some(c),
                Some(w) if more_specific(&w.masks, &c.masks) => Some(w),
                Some(w) if more_specific(&c.masks, &w.masks) => Some(c),
                Some(_) => return None,
            };
        }
        if winner.is_some() {
            return winner;
        }
    }
    None
}

/// The first overload (layer and candidate) for which `has` holds.
fn first_with(
    layers: &[SmallVec<[SiteCand; 4]>],
    has: impl Fn(&SiteCand) -> bool,
) -> Option<(usize, &SiteCand)> {
    layers
        .iter()
        .enumerate()
        .find_map(|(i, layer)| layer.iter().find(|c| has(c)).map(|c| (i, c)))
}

/// The direct overload of a `value.name` site all of whose overloads take a
/// value and a bare word: the first with a [`DirectKey`] body, for the
/// kinds of receiver no other overload it could lose to takes.
fn direct_key_site(layers: &[SmallVec<[SiteCand; 4]>]) -> Option<DirectKeySite> {
    let all = layers.iter().flatten();
    if all.clone().any(|c| c.lazy != 0b10 || c.masks.len() != 2) {
        return None;
    }
    let (at, best) = first_with(layers, |c| c.def.direct_key.is_some())?;
    let keyword = param_for(&best.def, 1).is_some_and(|p| p.ty == PType::Keyword);
    if !keyword || best.def.params.len() != 2 {
        return None;
    }
    let kinds = winning_kinds(layers, at, best, [DirectKeySite::KINDS, mask::ALL]);
    (kinds[0] != 0).then_some(DirectKeySite {
        f: best.def.direct_key?,
        kinds: kinds[0],
    })
}

/// The body of the only overload of a site of two argument expressions,
/// when it takes both lazily and has a [`DirectLazy`] form.
fn direct_lazy_site(layers: &[SmallVec<[SiteCand; 4]>]) -> Option<DirectLazy> {
    let mut all = layers.iter().flatten();
    let only = all.next()?;
    let fits = only.lazy == 0b11 && only.def.params.len() == 2 && only.def.kwonly.is_empty();
    (fits && all.next().is_none())
        .then_some(only.def.direct_lazy)
        .flatten()
}

/// The direct overload of a site of two argument expressions all of whose
/// overloads take values (none lazily): the first with a [`Direct`] body,
/// for the pairs of value kinds for which the resolver would pick it.
fn direct_site(layers: &[SmallVec<[SiteCand; 4]>]) -> Option<DirectSite> {
    let all = layers.iter().flatten();
    if all.clone().any(|c| c.lazy != 0 || c.masks.len() != 2) {
        return None;
    }
    let (_, best) = first_with(layers, |c| {
        c.def.direct.is_some() && c.def.params.len() == 2
    })?;
    let mut pairs = 0;
    for (x, kx) in DirectSite::ORDER.iter().enumerate() {
        for (y, ky) in DirectSite::ORDER.iter().enumerate() {
            if picked(layers, [*kx, *ky]).is_some_and(|c| std::ptr::eq(c, best)) {
                pairs |= DirectSite::pair(x, y);
            }
        }
    }
    let mut f = best.def.direct?;
    // The integer body only where two integers pick this overload.
    if pairs & DirectSite::pair(0, 0) == 0 {
        f.ints = None;
    }
    (pairs != 0).then_some(DirectSite { f, pairs })
}
