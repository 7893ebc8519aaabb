//! An engine's compiled regular expressions, shared by every thread that
//! evaluates with it and bounded in entries.

use ahash::AHashMap as HashMap;
use std::sync::{Arc, RwLock};

/// At most this many patterns are kept (only small ones are offered: one
/// compiled pattern can take megabytes, held outside every evaluation's
/// memory limit).
const ENTRIES: usize = 64;

type Compiled = Arc<fancy_regex::Regex>;

/// The patterns kept, by text, each with the flags it was compiled with.
type ByText = HashMap<Box<str>, Vec<(u32, Compiled)>>;

/// Compiled patterns by text, then by flags.
#[derive(Default)]
pub struct RegexCache {
    map: RwLock<ByText>,
}

impl RegexCache {
    pub fn get(&self, pattern: &str, flags: u32) -> Option<Compiled> {
        // A pattern is kept whole or not at all: one left by a panicking
        // thread is still sound.
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        let kept = map.get(pattern)?;
        kept.iter()
            .find(|(f, _)| *f == flags)
            .map(|(_, re)| re.clone())
    }

    /// How many patterns are kept.
    pub fn len(&self) -> usize {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        map.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn insert(&self, pattern: &str, flags: u32, re: Compiled) {
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        if map.len() >= ENTRIES {
            map.clear();
        }
        let kept = map.entry(Box::from(pattern)).or_default();
        if !kept.iter().any(|(f, _)| *f == flags) {
            kept.push((flags, re));
        }
    }
}
