//! Just enough unsigned big-integer arithmetic to compare a decimal with a double exactly.

use std::cmp::Ordering;

/// Little-endian base-2^32 digits.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u128(mut v: u128) -> Self {
        let mut digits = Vec::new();
        while v > 0 {
            digits.push(v as u32);
            v >>= 32;
        }
        Self(digits)
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for d in &mut self.0 {
            let p = u64::from(*d) * u64::from(m) + carry;
            *d = p as u32;
            carry = p >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow(&mut self, base: u32, exp: u32) {
        for _ in 0..exp {
            self.mul_small(base);
        }
    }

    fn shl(&mut self, bits: u32) {
        let words = (bits / 32) as usize;
        let rest = bits % 32;
        if rest > 0 {
            self.mul_small(1 << rest);
        }
        let mut shifted = vec![0; words];
        shifted.append(&mut self.0);
        self.0 = shifted;
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Compares `c × 10^e10` with `m × 2^e2` exactly (both non-negative).
pub fn compare_scaled(c: u128, e10: i32, m: u64, e2: i32) -> Ordering {
    let mut left = Big::from_u128(c);
    let mut right = Big::from_u128(u128::from(m));
    // Multiply both sides until every exponent is non-negative.
    if e10 >= 0 {
        left.mul_pow(10, e10.unsigned_abs());
    } else {
        right.mul_pow(10, e10.unsigned_abs());
    }
    if e2 >= 0 {
        right.shl(e2.unsigned_abs());
    } else {
        left.shl(e2.unsigned_abs());
    }
    left.trim();
    right.trim();
    left.cmp(&right)
}
