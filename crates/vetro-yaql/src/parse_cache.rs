//! A bounded least-recently-used cache of parsed (and compiled)
//! expressions, keyed by source text: parsing the same text again costs one
//! hash lookup.

use std::collections::VecDeque;
use std::sync::Arc;

/// LRU map from expression text to its syntax tree.
///
/// Recency is tracked lazily: every hit stamps the entry and queues
/// `(text, stamp)`; eviction pops queue entries until one still carries its
/// entry's current stamp. The queue is compacted when it grows past a few
/// times the capacity, so memory stays proportional to `capacity`.
pub struct ParseCache<T> {
    capacity: usize,
    tick: u64,
    map: ahash::AHashMap<Arc<str>, (Arc<str>, T, u64)>,
    order: VecDeque<(Arc<str>, u64)>,
}

impl<T: Clone> ParseCache<T> {
    pub fn new(capacity: usize) -> ParseCache<T> {
        ParseCache {
            capacity: capacity.max(1),
            tick: 0,
            map: ahash::AHashMap::new(),
            order: VecDeque::new(),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }

    /// The cached tree for `src` and the shared text, marking it most
    /// recently used.
    pub fn get(&mut self, src: &str) -> Option<(Arc<str>, T)> {
        self.tick += 1;
        let tick = self.tick;
        let entry = self.map.get_mut(src)?;
        entry.2 = tick;
        let (key, ast) = (entry.0.clone(), entry.1.clone());
        self.order.push_back((key.clone(), tick));
        self.compact();
        Some((key, ast))
    }

    /// Whether `src` is cached (without marking it used).
    pub fn contains(&self, src: &str) -> bool {
        self.map.contains_key(src)
    }

    /// Remember `ast` for `src`, evicting the least recently used entry when
    /// full; returns the shared text.
    pub fn insert(&mut self, src: &str, ast: T) -> Arc<str> {
        self.tick += 1;
        let key: Arc<str> = Arc::from(src);
        if self
            .map
            .insert(key.clone(), (key.clone(), ast, self.tick))
            .is_none()
        {
            while self.map.len() > self.capacity {
                self.evict_one();
            }
        }
        self.order.push_back((key.clone(), self.tick));
        self.compact();
        key
    }

    fn evict_one(&mut self) {
        while let Some((key, tick)) = self.order.pop_front() {
            if self.map.get(&key).is_some_and(|e| e.2 == tick) {
                self.map.remove(&key);
                return;
            }
        }
    }

    /// Drop stale queue entries once they outnumber live ones.
    fn compact(&mut self) {
        if self.order.len() <= 4 * self.capacity + 16 {
            return;
        }
        let map = &self.map;
        self.order
            .retain(|(key, tick)| map.get(key).is_some_and(|e| e.2 == *tick));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::{Expr, ExprKind, Literal};

    fn ast(i: i64) -> Arc<Expr> {
        Arc::new(Expr::detached(ExprKind::Const(Literal::Int(i))))
    }

    fn val(c: &mut ParseCache<Arc<Expr>>, src: &str) -> Option<i64> {
        c.get(src).map(|(_, e)| match &e.kind {
            ExprKind::Const(Literal::Int(i)) => *i,
            _ => -1,
        })
    }

    #[test]
    fn evicts_least_recently_used() {
        let mut c = ParseCache::new(2);
        c.insert("a", ast(1));
        c.insert("b", ast(2));
        assert_eq!(val(&mut c, "a"), Some(1));
        c.insert("c", ast(3));
        assert_eq!(val(&mut c, "b"), None);
        assert_eq!(val(&mut c, "a"), Some(1));
        assert_eq!(val(&mut c, "c"), Some(3));
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn stays_bounded_under_many_hits() {
        let mut c = ParseCache::new(3);
        for i in 0..1000 {
            let key = format!("k{}", i % 5);
            if c.get(&key).is_none() {
                c.insert(&key, ast(i));
            }
            assert!(c.len() <= 3);
            assert!(c.order.len() <= 4 * 3 + 17);
        }
    }
}
