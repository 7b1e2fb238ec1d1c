//! IEEE 754-2008 decimal128 (BID encoding, as BSON stores it): decoding, exact comparison, and
//! the conversions MongoDB applies when hashing and ordering.

use std::cmp::Ordering;

/// A decimal128 value as its 16 BSON bytes (little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal128(pub [u8; 16]);

/// A decoded decimal128.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    NaN,
    Infinity {
        negative: bool,
    },
    /// `(-1)^negative × coefficient × 10^exponent`; the coefficient is below 10^34.
    Finite {
        negative: bool,
        coefficient: u128,
        exponent: i32,
    },
}

const EXPONENT_BIAS: i32 = 6176;
const MAX_COEFFICIENT: u128 = 9_999_999_999_999_999_999_999_999_999_999_999;

impl Decimal128 {
    pub fn decode(self) -> Decoded {
        let bits = u128::from_le_bytes(self.0);
        let negative = bits >> 127 == 1;
        let combination = (bits >> 122) & 0x1F;
        if combination == 0x1F {
            return Decoded::NaN;
        }
        if combination == 0x1E {
            return Decoded::Infinity { negative };
        }
        let (exponent_bits, coefficient) = if (bits >> 125) & 0b11 == 0b11 {
            // The "large coefficient" form: its coefficient always exceeds 10^34, so it is a
            // non-canonical encoding of zero.
            ((bits >> 111) & 0x3FFF, 0)
        } else {
            ((bits >> 113) & 0x3FFF, bits & ((1u128 << 113) - 1))
        };
        let coefficient = if coefficient > MAX_COEFFICIENT {
            0
        } else {
            coefficient
        };
        Decoded::Finite {
            negative,
            coefficient,
            exponent: exponent_bits as i32 - EXPONENT_BIAS,
        }
    }

    /// The nearest double (correctly rounded), for ordering prefixes and comparisons.
    pub fn to_f64(self) -> f64 {
        match self.decode() {
            Decoded::NaN => f64::NAN,
            Decoded::Infinity { negative } => {
                if negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Decoded::Finite {
                negative,
                coefficient,
                exponent,
            } => {
                let text = format!(
                    "{}{coefficient}e{exponent}",
                    if negative { "-" } else { "" }
                );
                text.parse().unwrap_or(0.0)
            }
        }
    }

    /// `Decimal128::toLong` with the default rounding (ties to even), saturating, NaN as 0: the
    /// number MongoDB hashes for a decimal (`safeNumberLongForHash`).
    pub fn to_i64_for_hash(self) -> i64 {
        match self.decode() {
            Decoded::NaN => 0,
            Decoded::Infinity { negative } => {
                if negative {
                    i64::MIN
                } else {
                    i64::MAX
                }
            }
            Decoded::Finite {
                negative,
                coefficient,
                exponent,
            } => {
                let magnitude = integer_part_ties_even(coefficient, exponent);
                saturate(negative, magnitude)
            }
        }
    }
}

/// `coefficient × 10^exponent` rounded to an integer (ties to even); `None` when beyond u128.
fn integer_part_ties_even(coefficient: u128, exponent: i32) -> Option<u128> {
    if coefficient == 0 {
        return Some(0);
    }
    if exponent >= 0 {
        let scale = 10u128.checked_pow(exponent.unsigned_abs())?;
        return coefficient.checked_mul(scale);
    }
    let Some(divisor) = 10u128.checked_pow(exponent.unsigned_abs()) else {
        return Some(0); // below 10^34 / 10^39: rounds to zero
    };
    let quotient = coefficient / divisor;
    let remainder = coefficient % divisor;
    let half = divisor / 2;
    let round_up = remainder > half || (remainder == half && quotient % 2 == 1);
    Some(quotient + u128::from(round_up))
}

fn saturate(negative: bool, magnitude: Option<u128>) -> i64 {
    match (negative, magnitude) {
        (false, Some(m)) => i64::try_from(m).unwrap_or(i64::MAX),
        (true, Some(m)) if m <= 1u128 << 63 => (m as i128).wrapping_neg() as i64,
        (false, None) => i64::MAX,
        (true, _) => i64::MIN,
    }
}

/// Number of decimal digits of a non-zero coefficient.
fn digits(mut c: u128) -> i32 {
    let mut n = 0;
    while c > 0 {
        c /= 10;
        n += 1;
    }
    n
}

/// Exact comparison of two finite non-negative magnitudes `c1·10^e1` and `c2·10^e2`.
pub fn compare_magnitudes(c1: u128, e1: i32, c2: u128, e2: i32) -> Ordering {
    match (c1 == 0, c2 == 0) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let (d1, d2) = (digits(c1), digits(c2));
    let adjusted = (e1 + d1).cmp(&(e2 + d2));
    if adjusted != Ordering::Equal {
        return adjusted;
    }
    // Same magnitude order: pad the shorter coefficient to the longer's digit count (≤ 34 digits).
    let (mut a, mut b) = (c1, c2);
    if d1 < d2 {
        a *= 10u128.pow((d2 - d1).unsigned_abs());
    } else {
        b *= 10u128.pow((d1 - d2).unsigned_abs());
    }
    a.cmp(&b)
}

/// Builds a decimal from parts (for tests and conversions).
pub fn encode(negative: bool, coefficient: u128, exponent: i32) -> Decimal128 {
    let exponent_bits = u128::from((exponent + EXPONENT_BIAS) as u16 & 0x3FFF);
    let bits = (u128::from(negative) << 127) | (exponent_bits << 113) | coefficient;
    Decimal128(bits.to_le_bytes())
}
