//! Garbage collection and destruction: reachability from the roots, and the
//! order in which doomed objects hear of each other and are destroyed.

use super::call::CallKind;
use super::frames::CallStack;
use super::model::collect_objects;
use super::objects::ObjectStore;
use super::scheduler::Scheduler;
use super::types::*;
use super::Rt;
use ahash::{AHashMap as HashMap, AHashSet as HashSet};
use std::collections::BTreeMap;
use std::rc::Rc;
use vetro_yaql::Value;

impl Rt {
    /// Destroy every stored object not reachable from `roots`.
    pub(super) fn collect_garbage(&self, roots: &[Rc<Object>]) {
        let live = reachable(roots);
        let doomed: Vec<Rc<Object>> = self
            .objects
            .all()
            .into_iter()
            .filter(|o| !live.contains(&o.id) && !o.destroyed.get())
            .collect();
        self.destroy_objects(doomed);
    }

    /// Destroy every stored object the model's root no longer reaches (the
    /// end of a deployment: nothing runs any more).
    pub fn collect_garbage_from_root(&self) {
        let roots: Vec<_> = self.objects.root().into_iter().collect();
        self.collect_garbage(&roots);
    }

    /// Destroy every stored object that running code can no longer reach
    /// (`GC.collect()`): the roots are the model's root, static property
    /// values, and what running and parked methods hold.
    pub(crate) fn collect_garbage_while_running(&self) {
        let mut roots: Vec<Rc<Object>> = self.objects.root().into_iter().collect();
        roots.extend(live_roots(&self.frames, &self.scheduler, &self.objects));
        self.collect_garbage(&roots);
    }

    /// Destroy objects together: every destruction handler first (shallow
    /// groups first), then `.destroy` group by group, deepest first, so owned
    /// objects go before their owners and publishers before subscribers.
    pub(super) fn destroy_objects(&self, mut doomed: Vec<Rc<Object>>) {
        if doomed.is_empty() {
            return;
        }
        for o in &doomed {
            o.doomed.set(true);
        }
        doomed.sort_by_key(|o| match o.settled.get() {
            0 => u64::MAX,
            n => n,
        });
        let groups = destruction_groups(&doomed);
        for group in groups.values() {
            for o in group {
                self.signal_destruction(o);
            }
        }
        // The objects of one group are destroyed in parallel green threads.
        let Some(rt) = self.me.upgrade() else { return };
        for group in groups.values().rev() {
            let tasks: Vec<super::green::Task> = group
                .iter()
                .map(|o| {
                    let (rt, o) = (rt.clone(), o.clone());
                    Box::new(move || {
                        rt.destroy_one(&o);
                        Ok(Value::Null)
                    }) as super::green::Task
                })
                .collect();
            // A bounded number at a time, so that stacks are reused.
            self.run_green(tasks, Some(super::green::POOL_LIMIT));
        }
    }

    fn signal_destruction(&self, o: &Rc<Object>) {
        for (s, h) in o.subscribers.borrow().clone() {
            if let Some(h) = h {
                let _ = self.call_method(
                    &s.value(),
                    &h,
                    vec![o.value()],
                    Vec::new(),
                    CallKind::Expression,
                );
            }
        }
    }

    fn destroy_one(&self, o: &Rc<Object>) {
        if o.destroyed.get() {
            return;
        }
        for c in o.class.mro() {
            if let Some(m) = c.def.methods.get(".destroy") {
                let _ = self.invoke(&c, m, o.value(), Some(o.clone()), Vec::new(), Vec::new());
            }
        }
        o.destroyed.set(true);
        self.objects.remove(&o.id);
    }
}

/// Objects reachable from `roots` through property values.
fn reachable(roots: &[Rc<Object>]) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut stack: Vec<Rc<Object>> = roots.to_vec();
    while let Some(o) = stack.pop() {
        if !seen.insert(o.id.clone()) {
            continue;
        }
        let mut vals: Vec<Value> = o.props.borrow().values().cloned().collect();
        vals.extend(o.private.borrow().values().cloned());
        for v in vals {
            collect_objects(&v, &mut stack);
        }
    }
    seen
}

/// Objects that running frames hold as receivers or in their variables,
/// and those static property values hold.
fn live_roots(frames: &CallStack, scheduler: &Scheduler, objects: &ObjectStore) -> Vec<Rc<Object>> {
    let mut out = frames.receivers();
    let mut frames = frames.live_frames();
    let (parked_frames, parked_receivers) = scheduler.parked_roots();
    frames.extend(parked_frames);
    out.extend(parked_receivers);
    let mut values = Vec::new();
    for (ctx, _, m) in frames.iter() {
        let mut names: Vec<String> = m.args.iter().map(|a| a.name.clone()).collect();
        super::exec::var_names(&m.body, &mut names);
        for n in names {
            if let Some(v) = ctx.get(&n) {
                values.push(v);
            }
        }
    }
    values.extend(objects.static_values());
    for v in values {
        collect_objects(&v, &mut out);
    }
    out
}

/// Group doomed objects by depth in the graph where each object points to its
/// owner and then its destruction subscribers: an object's depth is one more
/// than the deepest of those that are doomed too. Within a group, objects come
/// in the order a depth-first walk over `doomed` meets them, as in the
/// reference (which tolerates cycles the same way: a node is entered again
/// through its owner edge, through other edges only when not seen yet).
fn destruction_groups(doomed: &[Rc<Object>]) -> BTreeMap<usize, Vec<Rc<Object>>> {
    struct Walk<'a> {
        by_id: HashMap<&'a str, &'a Rc<Object>>,
        visits: HashMap<String, usize>,
        depth: HashMap<String, usize>,
        groups: BTreeMap<usize, Vec<Rc<Object>>>,
    }
    impl Walk<'_> {
        fn visit(&mut self, o: &Rc<Object>, guard: usize) {
            *self.visits.entry(o.id.clone()).or_default() += 1;
            if guard > 10_000 {
                return;
            }
            let mut edges: Vec<Rc<Object>> = Vec::new();
            let owner = o.owner.borrow().clone();
            let owner_doomed = owner
                .as_ref()
                .and_then(|w| self.by_id.get(w.id.as_str()).map(|x| (*x).clone()));
            for (s, _) in o.subscribers.borrow().iter() {
                let is_owner = owner.as_ref().is_some_and(|w| Rc::ptr_eq(w, s));
                if !is_owner && !edges.iter().any(|e| Rc::ptr_eq(e, s)) {
                    edges.push(s.clone());
                }
            }
            let mut deepest = 0;
            if let Some(w) = owner_doomed {
                self.visit(&w, guard + 1);
                deepest = self.depth.get(&w.id).copied().unwrap_or(0);
            }
            for s in edges {
                let Some(s) = self.by_id.get(s.id.as_str()).map(|x| (*x).clone()) else {
                    continue;
                };
                if self.visits.get(&s.id).copied().unwrap_or(0) == 0 {
                    self.visit(&s, guard + 1);
                }
                deepest = deepest.max(self.depth.get(&s.id).copied().unwrap_or(0));
            }
            let visits = self.visits.entry(o.id.clone()).or_default();
            if *visits <= 2 {
                *visits += 1;
                self.depth.insert(o.id.clone(), deepest + 1);
                self.groups.entry(deepest + 1).or_default().push(o.clone());
            }
        }
    }
    let mut walk = Walk {
        by_id: doomed.iter().map(|o| (o.id.as_str(), o)).collect(),
        visits: HashMap::new(),
        depth: HashMap::new(),
        groups: BTreeMap::new(),
    };
    for o in doomed {
        if walk.visits.get(&o.id).copied().unwrap_or(0) == 0 {
            walk.visit(o, 0);
        }
    }
    walk.groups
}
