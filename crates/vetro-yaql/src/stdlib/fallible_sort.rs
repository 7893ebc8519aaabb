//! A stable sort whose comparison may fail: the first failure ends it.
//! The standard library's sorts may panic when a comparison is not a total
//! order, and one that fails part-way (yaql's `1 < 'a'`) is not one.

use crate::error::Result;
use std::cmp::Ordering;

/// Runs this long are sorted by insertion before they are merged.
const RUN: usize = 16;

/// The positions `0..n` in the order `cmp` puts them, stably: positions
/// whose items compare equal stay in their order. A bottom-up merge sort
/// over 32-bit positions, so its scratch space is four bytes per item.
pub fn sorted_positions(
    n: usize,
    mut cmp: impl FnMut(u32, u32) -> Result<Ordering>,
) -> Result<Vec<u32>> {
    let n32 = u32::try_from(n).expect("fewer than 2^32 items");
    let mut from: Vec<u32> = (0..n32).collect();
    for run in from.chunks_mut(RUN) {
        insertion_sort(run, &mut cmp)?;
    }
    let mut to = vec![0u32; n];
    let mut width = RUN;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            merge(
                &from[start..mid],
                &from[mid..end],
                &mut to[start..end],
                &mut cmp,
            )?;
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    Ok(from)
}

fn insertion_sort(s: &mut [u32], cmp: &mut impl FnMut(u32, u32) -> Result<Ordering>) -> Result<()> {
    for i in 1..s.len() {
        let x = s[i];
        let mut j = i;
        while j > 0 && cmp(s[j - 1], x)? == Ordering::Greater {
            s[j] = s[j - 1];
            j -= 1;
        }
        s[j] = x;
    }
    Ok(())
}

/// Merge two sorted runs into `out`, the left one's items first on ties.
fn merge(
    left: &[u32],
    right: &[u32],
    out: &mut [u32],
    cmp: &mut impl FnMut(u32, u32) -> Result<Ordering>,
) -> Result<()> {
    // Runs already in order (a sorted input) are copied.
    if let (Some(&l), Some(&r)) = (left.last(), right.first()) {
        if cmp(l, r)? != Ordering::Greater {
            out[..left.len()].copy_from_slice(left);
            out[left.len()..].copy_from_slice(right);
            return Ok(());
        }
    }
    let (mut i, mut j) = (0, 0);
    for slot in out.iter_mut() {
        let take_left =
            j == right.len() || (i < left.len() && cmp(left[i], right[j])? != Ordering::Greater);
        if take_left {
            *slot = left[i];
            i += 1;
        } else {
            *slot = right[j];
            j += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn sort_keys(keys: &[i64]) -> Vec<u32> {
        sorted_positions(keys.len(), |a, b| {
            Ok(keys[a as usize].cmp(&keys[b as usize]))
        })
        .unwrap()
    }

    #[test]
    fn sorts_stably_at_every_length() {
        for n in [0, 1, 2, 15, 16, 17, 31, 33, 100, 1000] {
            let keys: Vec<i64> = (0..n).map(|i| (i * 7919 % 13) as i64).collect();
            let got = sort_keys(&keys);
            let mut want: Vec<u32> = (0..n as u32).collect();
            want.sort_by_key(|&i| keys[i as usize]); // the standard stable sort
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn the_first_failing_comparison_ends_the_sort() {
        let mut calls = 0;
        let r = sorted_positions(1000, |a, b| {
            calls += 1;
            if a % 3 == 0 && b % 5 == 0 {
                return Err(Error::type_err("incomparable"));
            }
            Ok(a.cmp(&b).reverse())
        });
        assert!(r.is_err());
        let failed_at = calls;
        assert!(
            failed_at < 1000 * 10,
            "stopped early, after {failed_at} comparisons"
        );
    }
}
