//! How often a poll asks `balancerCollectionStatus`: a mongos is not asked it for every
//! collection at every poll (3,000 collections made 3,000 commands a poll, as many as every other
//! read together). Each poll asks at most [`ASK_PER_POLL`] collections: first those whose
//! collection version changed since they were last asked (a split, merge or migration: what
//! changes the answer most), then the others in turn, so every collection is asked again within
//! `collections / ASK_PER_POLL` polls. The answers are kept between polls and shown for every
//! collection; a collection not asked yet has no reason shown. A cluster with at most
//! `ASK_PER_POLL` collections is asked for all of them at every poll, as before.
//!
//! Owns: which collections are due and the answers kept. May not touch: how an answer reads
//! (`balancer_status`), the cluster.

use std::collections::HashMap;

use super::balancer_status;
use super::client::LiveClient;
use super::refusals::Refusals;
use crate::model::ChunkVersion;

/// At most this many `balancerCollectionStatus` commands a poll.
pub const ASK_PER_POLL: usize = 16;

/// The answers kept between polls, and where the turn resumes.
#[derive(Debug)]
pub struct CompliancePace {
    /// Namespace → (its collection version when asked, the answer in words).
    known: HashMap<String, (ChunkVersion, Vec<String>)>,
    next: usize,
    /// Commands a poll may send ([`ASK_PER_POLL`]; `usize::MAX`: every collection every poll).
    pub budget: usize,
}

impl Default for CompliancePace {
    fn default() -> Self {
        Self {
            known: HashMap::new(),
            next: 0,
            budget: ASK_PER_POLL,
        }
    }
}

impl CompliancePace {
    /// The collections to ask this poll: changed ones first, then the next in turn.
    pub fn due(&mut self, colls: &[(String, ChunkVersion)]) -> Vec<String> {
        self.known
            .retain(|ns, _| colls.iter().any(|(n, _)| n == ns));
        let mut due: Vec<String> = colls
            .iter()
            .filter(|(ns, v)| self.known.get(ns).is_none_or(|(asked, _)| asked != v))
            .map(|(ns, _)| ns.clone())
            .take(self.budget)
            .collect();
        let n = colls.len();
        let mut looked = 0;
        while due.len() < self.budget && looked < n {
            let ns = &colls[self.next % n].0;
            self.next = (self.next + 1) % n;
            looked += 1;
            if !due.contains(ns) {
                due.push(ns.clone());
            }
        }
        due
    }

    /// Asks the collections due and returns the answers kept for all of `colls`, in their order.
    /// A refusal to this user (Unauthorized) stops the asking for this poll (noted once).
    pub async fn ask(
        &mut self,
        client: &LiveClient,
        colls: &[(String, ChunkVersion)],
        refused: &mut Refusals,
    ) -> Vec<String> {
        for ns in self.due(colls) {
            let before = refused.0.len();
            let answer = balancer_status::compliance(client, vec![ns.clone()], refused).await;
            let denied = refused.0[before..]
                .iter()
                .any(|r| r.text.contains("not authorized"));
            if denied {
                break;
            }
            if let Some((_, v)) = colls.iter().find(|(n, _)| *n == ns) {
                self.known.insert(ns, (*v, answer));
            }
        }
        colls
            .iter()
            .filter_map(|(ns, _)| self.known.get(ns))
            .flat_map(|(_, answer)| answer.iter().cloned())
            .collect()
    }
}

/// The answers in the compliance lines (`"<ns>: balanced (balancerCompliant)"`, `"<ns>:
/// <violation>"`), per namespace: `None` compliant, else the violation.
pub fn answers(lines: &[String]) -> std::collections::BTreeMap<String, Option<String>> {
    lines
        .iter()
        .filter_map(|l| {
            let (ns, rest) = l.split_once(": ")?;
            let answer = (!rest.starts_with("balanced")).then(|| rest.to_string());
            Some((ns.to_string(), answer))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn colls(n: usize) -> Vec<(String, ChunkVersion)> {
        (0..n)
            .map(|i| (format!("db.c{i:04}"), ChunkVersion::new(1, 0)))
            .collect()
    }

    #[test]
    fn changed_collections_first_then_every_other_in_turn() {
        let mut pace = CompliancePace::default();
        let all = colls(40);
        // Nothing known: the first 16.
        let first = pace.due(&all);
        assert_eq!(first.len(), ASK_PER_POLL);
        for ns in &first {
            let v = all.iter().find(|(n, _)| n == ns).map(|(_, v)| *v);
            pace.known
                .insert(ns.clone(), (v.unwrap_or_default(), Vec::new()));
        }
        // A changed collection comes first, the rest of the budget goes to the unknown ones.
        let mut changed = all.clone();
        changed[3].1 = ChunkVersion::new(2, 0);
        let second = pace.due(&changed);
        assert_eq!(second[0], "db.c0003");
        assert_eq!(second.len(), ASK_PER_POLL);
        assert!(second.contains(&"db.c0016".to_string()));
        // Every collection is asked within ceil(40 / 16) + 1 polls.
        let mut pace = CompliancePace::default();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..4 {
            for ns in pace.due(&all) {
                pace.known
                    .insert(ns.clone(), (ChunkVersion::new(1, 0), Vec::new()));
                seen.insert(ns);
            }
        }
        assert_eq!(seen.len(), 40);
        // A small cluster: everything, every poll.
        let few = colls(5);
        let mut pace = CompliancePace::default();
        for _ in 0..3 {
            let due = pace.due(&few);
            assert_eq!(due.len(), 5);
            for ns in due {
                pace.known.insert(ns, (ChunkVersion::new(1, 0), Vec::new()));
            }
        }
    }
}
