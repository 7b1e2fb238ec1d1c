//! `$in` and `$nin` lists looked up in log time instead of scanned: while a read runs a filter
//! over many documents ([`prepared`]), each long list of the filter is kept as an ordered set of
//! values in MongoDB's order (by the list's address, which is stable while the filter is
//! borrowed), so a 4,000-value `$in` over 100,000 documents costs 100,000 lookups, not 400
//! million comparisons.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use bson::{Bson, Document};

use crate::model::KeyValue;
use crate::model::extjson::from_bson;

/// Lists shorter than this are scanned (building a set costs more than it saves).
const SET_FROM: usize = 16;

thread_local! {
    static SETS: RefCell<HashMap<usize, Rc<BTreeSet<KeyValue>>>> = RefCell::new(HashMap::new());
}

fn address(list: &[Bson]) -> usize {
    list.as_ptr() as usize
}

/// The ordered set of `list` when a [`prepared`] run holds one.
pub fn set_of(list: &[Bson]) -> Option<Rc<BTreeSet<KeyValue>>> {
    if list.len() < SET_FROM {
        return None;
    }
    SETS.with(|s| s.borrow().get(&address(list)).cloned())
}

/// Runs `f` with the long `$in`/`$nin` lists of `filter` (those without regular expressions)
/// held as sets.
pub fn prepared<T>(filter: &Document, f: impl FnOnce() -> T) -> T {
    let mut lists = Vec::new();
    collect(filter, &mut lists);
    if lists.is_empty() {
        return f();
    }
    let _held = Held::new(&lists);
    f()
}

/// The sets of one [`prepared`] run, removed when it ends (also by unwinding).
struct Held(Vec<(usize, Option<Rc<BTreeSet<KeyValue>>>)>);

impl Held {
    fn new(lists: &[&Vec<Bson>]) -> Self {
        let saved = lists
            .iter()
            .map(|l| {
                let set: BTreeSet<KeyValue> = l.iter().map(from_bson).collect();
                let previous = SETS.with(|s| s.borrow_mut().insert(address(l), Rc::new(set)));
                (address(l), previous)
            })
            .collect();
        Self(saved)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        SETS.with(|s| {
            let mut s = s.borrow_mut();
            for (at, previous) in self.0.drain(..).rev() {
                match previous {
                    Some(p) => s.insert(at, p),
                    None => s.remove(&at),
                };
            }
        });
    }
}

fn collect<'a>(filter: &'a Document, out: &mut Vec<&'a Vec<Bson>>) {
    for (k, v) in filter {
        match v {
            Bson::Array(items) if k == "$in" || k == "$nin" => {
                let plain = !items
                    .iter()
                    .any(|i| matches!(i, Bson::RegularExpression(_)));
                if plain && items.len() >= SET_FROM {
                    out.push(items);
                }
            }
            Bson::Array(items) => {
                for i in items {
                    if let Bson::Document(d) = i {
                        collect(d, out);
                    }
                }
            }
            Bson::Document(d) => collect(d, out),
            _ => {}
        }
    }
}
