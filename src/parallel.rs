//! Work shared among threads: items taken one at a time from a shared counter by one thread
//! per state, the results handed back in the items' order (the writers' column encoding and
//! compression).

use crate::{Error, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// `f(state, item)` for each of `items`, on one thread per state in `states` (the calling
/// thread works with the first; no thread starts for one state or one item). Each thread
/// takes the next item from a shared counter, so a slow item holds up no other thread's
/// share. The results come back in the items' order.
///
/// Errors: no state, or a thread that panicked (named `what`).
pub(crate) fn map_in_order<S: Send, T: Send, R: Send>(
    items: Vec<T>,
    states: &mut [S],
    what: &str,
    f: impl Fn(&mut S, T) -> R + Sync,
) -> Result<Vec<R>> {
    let Some((first, rest)) = states.split_first_mut() else {
        return Err(Error::invalid(format!("no {what} thread to run on")));
    };
    let helpers = rest.len().min(items.len().saturating_sub(1));
    let tasks: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = AtomicUsize::new(0);
    let work = |state: &mut S| {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(task) = tasks.get(k) else {
                return done;
            };
            // The counter hands each index out once, so the item is there.
            let item = task.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(item) = item {
                done.push((k, f(state, item)));
            }
        }
    };
    let (mut done, panicked) = std::thread::scope(|s| {
        let handles: Vec<_> = (rest.iter_mut().take(helpers))
            .map(|state| s.spawn(|| work(state)))
            .collect();
        let mut done = work(first);
        let mut panicked = false;
        for h in handles {
            match h.join() {
                Ok(part) => done.extend(part),
                Err(_) => panicked = true,
            }
        }
        (done, panicked)
    });
    if panicked {
        return Err(Error::invalid(format!("a {what} thread panicked")));
    }
    done.sort_unstable_by_key(|&(k, _)| k);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

#[cfg(test)]
mod tests {
    use super::map_in_order;

    /// Any number of threads gives the items' results in their order, each item once.
    #[test]
    fn results_come_back_in_item_order() {
        let items: Vec<u64> = (0..500).collect();
        for threads in [1, 2, 3, 8] {
            let mut seen = vec![0usize; threads];
            let got = map_in_order(items.clone(), &mut seen, "test", |n, x| {
                *n += 1;
                x * x
            })
            .unwrap();
            assert_eq!(got, items.iter().map(|x| x * x).collect::<Vec<_>>());
            assert_eq!(seen.iter().sum::<usize>(), items.len(), "{threads} threads");
        }
        assert!(map_in_order(items, &mut Vec::<()>::new(), "test", |_, x| x).is_err());
    }

    /// A helper thread that panics is an error, not a missing result. (The calling thread
    /// works slowly, so the helpers take items.)
    #[test]
    fn a_panicking_thread_is_an_error() {
        let mut ids = [0, 1, 2, 3];
        let r = map_in_order((0..64).collect(), &mut ids, "test", |id, x: u32| {
            assert!(*id == 0, "a helper's item");
            std::thread::sleep(std::time::Duration::from_millis(1));
            x
        });
        assert!(r
            .unwrap_err()
            .to_string()
            .contains("a test thread panicked"));
    }
}
