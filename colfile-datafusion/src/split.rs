//! Spreading a scan's tasks over partitions so that each gets about the same work.

use std::sync::Arc;

use crate::exec::ScanTask;

/// Deals `tasks` (each with its weight, e.g. bytes) to at most `partitions` partitions:
/// heaviest first, each to the partition with the least work so far. Every task lands in
/// exactly one partition; no partition is empty unless there are no tasks.
pub fn assign(
    mut tasks: Vec<(u64, Arc<dyn ScanTask>)>,
    partitions: usize,
) -> Vec<Vec<Arc<dyn ScanTask>>> {
    let n = partitions.clamp(1, tasks.len().max(1));
    let mut out: Vec<(u64, Vec<Arc<dyn ScanTask>>)> = (0..n).map(|_| (0, Vec::new())).collect();
    tasks.sort_by_key(|t| std::cmp::Reverse(t.0));
    for (w, t) in tasks {
        if let Some(p) = out.iter_mut().min_by_key(|p| p.0) {
            p.0 = p.0.saturating_add(w.max(1));
            p.1.push(t);
        }
    }
    out.into_iter().map(|p| p.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct T(u64);
    impl ScanTask for T {
        fn run(
            &self,
            _: usize,
            _: &mut dyn FnMut(arrow_array::RecordBatch) -> bool,
            _: &mut crate::exec::TaskMetrics,
        ) -> colfile::Result<()> {
            Ok(())
        }
        fn describe(&self) -> String {
            self.0.to_string()
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    #[test]
    fn balances_and_keeps_every_task() {
        let tasks: Vec<(u64, Arc<dyn ScanTask>)> = [50u64, 10, 40, 30, 20, 10]
            .iter()
            .map(|&w| (w, Arc::new(T(w)) as Arc<dyn ScanTask>))
            .collect();
        let p = assign(tasks, 2);
        let sums: Vec<u64> = p
            .iter()
            .map(|ts| {
                ts.iter()
                    .map(|t| t.describe().parse::<u64>().unwrap())
                    .sum()
            })
            .collect();
        assert_eq!(sums.iter().sum::<u64>(), 160);
        assert!(sums.iter().all(|&s| s == 80), "{sums:?}");
        assert_eq!(assign(Vec::new(), 4).len(), 1);
        let one: Vec<(u64, Arc<dyn ScanTask>)> = vec![(1, Arc::new(T(1)))];
        assert_eq!(assign(one, 8).len(), 1, "no empty partitions");
    }
}
