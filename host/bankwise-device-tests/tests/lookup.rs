//! The typed lookups of `bankwise-primitives` ([`Atomic`], [`Shuffled`]) give, for every
//! operation and type, the entry of that operation and type. The compiler checks an entry's
//! parameter types, not which of several entries with the same types (`atomic_min_u32` or
//! `atomic_max_u32`) a lookup returns: that is what these check, by the entries' names.

use bankwise_primitives::{Atomic, AtomicOp, Pair, ShuffleKind, Shuffled};

/// Every entry `T`'s [`Atomic`] lookups give is named for its operation and `ty`; min and max
/// exist for integers only, red for every operation but exchange.
fn atomic_names<T: Atomic>(ty: &str, integer: bool) {
    for op in AtomicOp::ALL {
        let exists = integer || matches!(op, AtomicOp::Add | AtomicOp::Exchange);
        let want = |prefix: &str| exists.then(|| format!("{prefix}_{}_{ty}", op.name()));
        let got = |entry: Option<&'static str>| entry.map(str::to_string);
        assert_eq!(got(T::atomic(op).map(|e| e.name())), want("atomic"), "{op:?} on {ty}");
        let red = want("red").filter(|_| op != AtomicOp::Exchange);
        assert_eq!(got(T::red(op).map(|e| e.name())), red, "red {op:?} on {ty}");
        assert_eq!(got(T::shared_atomic(op).map(|e| e.name())), want("shared_atomic"), "shared {op:?} on {ty}");
    }
    assert_eq!(T::CAS.name(), format!("atomic_cas_{ty}"));
    assert_eq!(T::CAS_INCREMENT.name(), format!("atomic_cas_increment_{ty}"));
    assert_eq!(T::SHARED_CAS.name(), format!("shared_atomic_cas_{ty}"));
    assert_eq!(T::SHARED_CAS_INCREMENT.name(), format!("shared_cas_increment_{ty}"));
}

#[test]
fn every_atomic_lookup_gives_the_entry_of_its_operation_and_type() {
    atomic_names::<u32>("u32", true);
    atomic_names::<i32>("i32", true);
    atomic_names::<u64>("u64", true);
    atomic_names::<i64>("i64", true);
    atomic_names::<f32>("f32", false);
    atomic_names::<f64>("f64", false);
}

/// Every entry `T`'s [`Shuffled`] lookup gives is named for its kind and `ty`.
fn shuffle_names<T: Shuffled>(ty: &str) {
    for kind in ShuffleKind::ALL {
        assert_eq!(T::shuffle(kind).name(), format!("shfl_{}_{ty}", kind.name()), "{kind:?}");
    }
}

#[test]
fn every_shuffle_lookup_gives_the_entry_of_its_kind_and_type() {
    shuffle_names::<u32>("u32");
    shuffle_names::<u64>("u64");
    shuffle_names::<f64>("f64");
    shuffle_names::<Pair>("pair");
}
