//! Property: targeting never misses a shard that holds a match, and is exact for equality.

use super::*;

// 4. Property: never miss a shard; exact for equality

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    EqShort,
    In,
    Gt,
    Gte,
    Lt,
    Lte,
}

impl Op {
    fn is_equality(self) -> bool {
        matches!(self, Op::Eq | Op::EqShort | Op::In)
    }

    fn holds(self, v: i64, operands: &[i64]) -> bool {
        match self {
            Op::Eq | Op::EqShort => v == operands[0],
            Op::In => operands.contains(&v),
            Op::Gt => v > operands[0],
            Op::Gte => v >= operands[0],
            Op::Lt => v < operands[0],
            Op::Lte => v <= operands[0],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Op::Eq | Op::EqShort => "$eq",
            Op::In => "$in",
            Op::Gt => "$gt",
            Op::Gte => "$gte",
            Op::Lt => "$lt",
            Op::Lte => "$lte",
        }
    }
}

#[derive(Clone, Debug)]
struct Clause {
    on_key: bool,
    op: Op,
    /// One operand except for `$in` (any number), with how each is written (0 int64, 1 int32,
    /// 2 double).
    operands: Vec<(i64, u8)>,
}

impl Clause {
    fn values(&self) -> Vec<i64> {
        self.operands.iter().map(|&(v, _)| v).collect()
    }

    fn to_document(&self) -> Document {
        let bson = |&(v, how): &(i64, u8)| match how {
            1 if i32::try_from(v).is_ok() => Bson::Int32(v as i32),
            2 if v.unsigned_abs() < 1 << 40 => Bson::Double(v as f64),
            _ => Bson::Int64(v),
        };
        let field = if self.on_key { "k" } else { "other" };
        let value = match self.op {
            Op::EqShort => bson(&self.operands[0]),
            Op::In => doc! {"$in": self.operands.iter().map(bson).collect::<Vec<_>>()}.into(),
            op => {
                let mut ops = Document::new();
                ops.insert(op.name(), bson(&self.operands[0]));
                ops.into()
            }
        };
        let mut out = Document::new();
        out.insert(field, value);
        out
    }
}

/// A disjunction of conjunctions of clauses.
#[derive(Clone, Debug)]
struct Filter {
    branches: Vec<Vec<Clause>>,
}

impl Filter {
    fn to_document(&self) -> Document {
        let conj = |clauses: &Vec<Clause>| -> Document {
            match &clauses[..] {
                [only] => only.to_document(),
                many => doc! {"$and": many.iter().map(Clause::to_document).collect::<Vec<_>>()},
            }
        };
        match &self.branches[..] {
            [only] => conj(only),
            many => doc! {"$or": many.iter().map(conj).collect::<Vec<_>>()},
        }
    }

    fn matches(&self, v: i64) -> bool {
        self.branches.iter().any(|clauses| {
            clauses
                .iter()
                .filter(|c| c.on_key)
                .all(|c| c.op.holds(v, &c.values()))
        })
    }

    /// Every branch pins the key by equality / $in only.
    fn is_pure_equality(&self) -> bool {
        self.branches.iter().all(|clauses| {
            let keyed: Vec<&Clause> = clauses.iter().filter(|c| c.on_key).collect();
            !keyed.is_empty() && keyed.iter().all(|c| c.op.is_equality())
        })
    }

    fn constants(&self) -> impl Iterator<Item = i64> + '_ {
        self.branches.iter().flatten().flat_map(Clause::values)
    }
}

fn value() -> impl Strategy<Value = i64> {
    prop_oneof![
        10 => -70i64..70,
        1 => prop::sample::select(vec![i64::MIN, i64::MIN + 1, i64::MAX - 1, i64::MAX]),
    ]
}

fn clause() -> impl Strategy<Value = Clause> {
    let op = prop::sample::select(vec![
        Op::Eq,
        Op::EqShort,
        Op::In,
        Op::Gt,
        Op::Gte,
        Op::Lt,
        Op::Lte,
    ]);
    (
        prop::bool::weighted(0.8),
        op,
        prop::collection::vec((value(), 0u8..3), 0..5),
    )
        .prop_map(|(on_key, op, mut operands)| {
            if op != Op::In {
                operands.truncate(1);
                if operands.is_empty() {
                    operands.push((0, 0));
                }
            }
            Clause {
                on_key,
                op,
                operands,
            }
        })
}

fn filter() -> impl Strategy<Value = Filter> {
    prop::collection::vec(prop::collection::vec(clause(), 1..4), 1..4)
        .prop_map(|branches| Filter { branches })
}

/// Random Int64 split points and shards.
fn int_table() -> impl Strategy<Value = (KeyPattern, RoutingTable, Vec<i64>)> {
    let points = prop::collection::vec(value(), 0..12);
    (points, prop::collection::vec(0u32..4, 13)).prop_map(|(mut points, owners)| {
        points.sort_unstable();
        points.dedup();
        let p = pattern(&doc! {"k": 1});
        let mut chunks = vec![(p.global_min(), owners[0])];
        for (i, point) in points.iter().enumerate() {
            chunks.push((ShardKey::single(KeyValue::Int64(*point)), owners[i + 1]));
        }
        let t = table(&p, chunks);
        (p, t, points)
    })
}

/// Integer values around every bound and constant: enough to reach every chunk an integer can
/// be in, and every side of every comparison.
fn candidates(points: &[i64], filter: &Filter) -> BTreeSet<i64> {
    let mut out: BTreeSet<i64> = [i64::MIN, i64::MAX, 0].into_iter().collect();
    for c in points.iter().copied().chain(filter.constants()) {
        out.extend([c.saturating_sub(1), c, c.saturating_add(1)]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn targeting_never_misses_a_shard((p, t, points) in int_table(), f in filter()) {
        let filter = f.to_document();
        let got = target(&p, &t, &filter);
        prop_assert!(!got.shards.is_empty());
        prop_assert!(got.shards.windows(2).all(|w| w[0] < w[1]), "not sorted: {:?}", got.shards);
        prop_assert_eq!(got.kind == TargetKind::SingleShard, got.shards.len() == 1);
        prop_assert!(got.chunks >= 1 && got.chunks <= t.len());

        let mut owners = BTreeSet::new();
        let mut chunks = BTreeSet::new();
        for v in candidates(&points, &f) {
            if f.matches(v) {
                let c = t.route(&ShardKey::single(KeyValue::Int64(v)));
                chunks.insert(c);
                owners.insert(t.chunk(c).info.shard);
            }
        }
        for shard in &owners {
            prop_assert!(got.shards.contains(shard), "{} misses {} in {:?}", filter, shard, got);
        }
        prop_assert!(got.chunks >= chunks.len(), "{}: {:?} vs chunks {:?}", filter, got, chunks);

        if f.is_pure_equality() {
            if owners.is_empty() {
                owners.insert(t.chunk(0).info.shard);
                chunks.insert(0);
            }
            prop_assert_eq!(&got.shards, &owners.into_iter().collect::<Vec<_>>(), "{}", filter);
            prop_assert_eq!(got.chunks, chunks.len(), "{}", filter);
        }
    }
}
