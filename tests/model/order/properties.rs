//! The order, its prefix, exact number comparison and the Extended JSON round trip as properties over generated values.

use super::*;

// Properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn ord_is_a_total_order(a in value(), b in value(), c in value()) {
        // Reflexive, and Eq agrees with Ord.
        prop_assert_eq!(a.cmp(&a), Ordering::Equal);
        prop_assert!(a == a.clone());
        prop_assert_eq!(a == b, a.cmp(&b) == Ordering::Equal);
        prop_assert_eq!(a.partial_cmp(&b), Some(a.cmp(&b)));
        // Antisymmetric.
        prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        prop_assert_eq!(b.cmp(&c), c.cmp(&b).reverse());
        // Transitive.
        if a <= b && b <= c {
            prop_assert!(a <= c, "{a:?} <= {b:?} <= {c:?} but not {a:?} <= {c:?}");
        }
        if a == b {
            prop_assert_eq!(a.cmp(&c), b.cmp(&c));
        }
        if a < b && b <= c {
            prop_assert!(a < c);
        }
    }

    #[test]
    fn sorting_is_consistent(mut values in prop::collection::vec(value(), 0..16)) {
        values.sort();
        for i in 0..values.len() {
            for j in i..values.len() {
                prop_assert_ne!(
                    values[i].cmp(&values[j]),
                    Ordering::Greater,
                    "sorted[{}] = {:?} > sorted[{}] = {:?}", i, &values[i], j, &values[j]
                );
            }
        }
    }

    #[test]
    fn order_prefix_never_contradicts_the_order(a in value(), b in value()) {
        let (pa, pb) = (a.order_prefix(), b.order_prefix());
        match a.cmp(&b) {
            Ordering::Less => prop_assert!(pa <= pb, "{a:?} < {b:?} but prefixes {pa:#x} > {pb:#x}"),
            Ordering::Equal => prop_assert_eq!(pa, pb, "{:?} == {:?}", a, b),
            Ordering::Greater => prop_assert!(pa >= pb, "{a:?} > {b:?} but prefixes {pa:#x} < {pb:#x}"),
        }
        // And a strictly smaller prefix means a strictly smaller value.
        if pa < pb {
            prop_assert!(a < b);
        }
    }

    #[test]
    fn order_prefix_on_sorted_lists(mut values in prop::collection::vec(value(), 0..16)) {
        values.sort();
        for w in values.windows(2) {
            prop_assert!(w[0].order_prefix() <= w[1].order_prefix(), "{:?} {:?}", w[0], w[1]);
        }
    }

    #[test]
    fn same_kind_lists_sort_with_monotone_prefixes(mut values in same_kind_list()) {
        values.sort();
        for i in 0..values.len() {
            for j in i..values.len() {
                let (a, b) = (&values[i], &values[j]);
                prop_assert_ne!(a.cmp(b), Ordering::Greater, "{:?} > {:?} after sorting", a, b);
                prop_assert_eq!(a.cmp(b), b.cmp(a).reverse());
                prop_assert!(a.order_prefix() <= b.order_prefix(), "{a:?} <= {b:?} but prefixes {:#x} > {:#x}", a.order_prefix(), b.order_prefix());
                if a == b {
                    prop_assert_eq!(a.order_prefix(), b.order_prefix(), "{:?} == {:?}", a, b);
                }
            }
        }
    }

    #[test]
    fn other_representations_are_equal(a in value(), c in value()) {
        for b in same_value_forms(&a) {
            prop_assert_eq!(&a, &b);
            prop_assert_eq!(a.cmp(&b), Ordering::Equal);
            prop_assert_eq!(a.order_prefix(), b.order_prefix(), "{:?} vs {:?}", a, b);
            prop_assert_eq!(a.cmp(&c), b.cmp(&c), "{:?} vs {:?} against {:?}", a, b, c);
            prop_assert_eq!(c.cmp(&a), c.cmp(&b));
        }
    }

    #[test]
    fn documents_against_a_reference(a in flat_document(), b in flat_document()) {
        let expected = doc_ref(&a).cmp(&doc_ref(&b));
        let (va, vb) = (KeyValue::Document(a.into()), KeyValue::Document(b.into()));
        prop_assert_eq!(va.cmp(&vb), expected, "{:?} vs {:?}", va, vb);
    }

    #[test]
    fn arrays_against_a_reference(a in flat_array(), b in flat_array()) {
        let expected = array_ref(&a).cmp(&array_ref(&b));
        let (va, vb) = (KeyValue::Array(a.into()), KeyValue::Array(b.into()));
        prop_assert_eq!(va.cmp(&vb), expected, "{:?} vs {:?}", va, vb);
    }

    #[test]
    fn numbers_compare_by_exact_value((a, ra) in number_with_ref(), (b, rb) in number_with_ref()) {
        prop_assert!(a.is_number() && b.is_number());
        if let Some(expected) = ref_cmp(ra, rb) {
            prop_assert_eq!(a.cmp(&b), expected, "{:?} vs {:?}", a, b);
        }
        // The prefix respects numeric order too.
        match a.cmp(&b) {
            Ordering::Less => prop_assert!(a.order_prefix() <= b.order_prefix()),
            Ordering::Equal => prop_assert_eq!(a.order_prefix(), b.order_prefix()),
            Ordering::Greater => prop_assert!(a.order_prefix() >= b.order_prefix()),
        }
    }

    #[test]
    fn int64_vs_its_nearest_double(x in interesting_i64()) {
        let d = x as f64;
        // `d` is integral and |d| <= 2^63, so `d as i128` is its exact value.
        let expected = i128::from(x).cmp(&(d as i128));
        prop_assert_eq!(KeyValue::Int64(x).cmp(&KeyValue::Double(d)), expected);
        prop_assert_eq!(KeyValue::Double(d).cmp(&KeyValue::Int64(x)), expected.reverse());
        // The decimal with x's exact digits equals x.
        let dec = KeyValue::Decimal(decimal::encode(x < 0, u128::from(x.unsigned_abs()), 0));
        prop_assert_eq!(KeyValue::Int64(x).cmp(&dec), Ordering::Equal);
        prop_assert_eq!(dec.cmp(&KeyValue::Double(d)), expected);
    }

    #[test]
    fn small_integers_are_equal_in_every_type(x in -1000i32..1000, scale in 0i32..4) {
        let c = u128::from(x.unsigned_abs()) * 10u128.pow(scale.unsigned_abs());
        let forms = [
            KeyValue::Int32(x),
            KeyValue::Int64(i64::from(x)),
            KeyValue::Double(f64::from(x)),
            KeyValue::Decimal(decimal::encode(x < 0, c, -scale)),
        ];
        for p in &forms {
            for q in &forms {
                prop_assert_eq!(p, q);
                prop_assert_eq!(p.order_prefix(), q.order_prefix());
            }
        }
        let next = KeyValue::Double(f64::from(x) + 0.5);
        for p in &forms {
            prop_assert!(*p < next);
        }
    }

    #[test]
    fn types_order_by_canonical_rank(a in value(), b in value()) {
        if rank(&a) != rank(&b) {
            prop_assert_eq!(a.cmp(&b), rank(&a).cmp(&rank(&b)), "{:?} vs {:?}", a, b);
        }
        prop_assert_eq!(
            a.canonical_type().cmp(&b.canonical_type()),
            rank(&a).cmp(&rank(&b))
        );
    }

    #[test]
    fn strings_order_by_bytes(a in text(), b in text()) {
        let expected = a.as_bytes().cmp(b.as_bytes());
        prop_assert_eq!(KeyValue::string(a.as_str()).cmp(&KeyValue::string(b.as_str())), expected);
        // A symbol compares with a string as if it were one.
        prop_assert_eq!(KeyValue::Symbol(a.as_str().into()).cmp(&KeyValue::string(b.as_str())), expected);
    }

    #[test]
    fn extjson_round_trip(v in value()) {
        let json = extjson::to_canonical(&v);
        let back = extjson::from_json(json.clone()).unwrap();
        prop_assert_eq!(&back, &v);
        // Types survive too: the canonical text is stable.
        prop_assert_eq!(canonical_text(&back), json.to_string());
        // Via text, as the command line reads it.
        let reparsed = extjson::parse(&json.to_string()).unwrap();
        prop_assert_eq!(&reparsed, &v);
        prop_assert_eq!(canonical_text(&reparsed), json.to_string());
        // And via BSON.
        let via_bson = extjson::from_bson(&extjson::to_bson(&v));
        prop_assert_eq!(&via_bson, &v);
        prop_assert_eq!(canonical_text(&via_bson), json.to_string());
        // Display is the canonical text.
        prop_assert_eq!(v.to_string(), json.to_string());
    }
}
