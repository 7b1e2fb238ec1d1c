//! MongoDB's order and hashing of numbers across int32, int64, double and decimal128: numbers of
//! different types compare by exact value; NaN is below every other number.

use std::cmp::Ordering;

use super::decimal::{self, Decoded};
use super::value::KeyValue;

/// A number reduced to the forms that need distinct comparison logic.
enum Num {
    Int(i64),
    Double(f64),
    Decimal(Decoded),
}

fn num(v: &KeyValue) -> Num {
    match v {
        KeyValue::Int32(i) => Num::Int(i64::from(*i)),
        KeyValue::Int64(i) => Num::Int(*i),
        KeyValue::Double(d) => Num::Double(*d),
        KeyValue::Decimal(d) => Num::Decimal(d.decode()),
        _ => Num::Int(0),
    }
}

/// Compares two numeric values exactly.
pub fn compare(a: &KeyValue, b: &KeyValue) -> Ordering {
    match (num(a), num(b)) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Double(x), Num::Double(y)) => compare_doubles(x, y),
        (Num::Int(x), Num::Double(y)) => compare_int_double(x, y),
        (Num::Double(x), Num::Int(y)) => compare_int_double(y, x).reverse(),
        (Num::Decimal(x), Num::Decimal(y)) => compare_decimals(x, y),
        (Num::Decimal(x), Num::Int(y)) => compare_decimals(x, int_as_decimal(y)),
        (Num::Int(x), Num::Decimal(y)) => compare_decimals(int_as_decimal(x), y),
        (Num::Decimal(x), Num::Double(y)) => compare_decimal_double(x, y),
        (Num::Double(x), Num::Decimal(y)) => compare_decimal_double(y, x).reverse(),
    }
}

fn compare_doubles(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// Exact comparison of an integer with a double.
fn compare_int_double(x: i64, y: f64) -> Ordering {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if y.is_nan() {
        return Ordering::Greater;
    }
    if y >= TWO_63 {
        return Ordering::Less;
    }
    if y < -TWO_63 {
        return Ordering::Greater;
    }
    let whole = y.trunc();
    let whole_int = whole as i64; // exact: |whole| < 2^63 or whole == -2^63
    x.cmp(&whole_int).then_with(|| {
        // x equals the integral part: the fractional part decides.
        if y > whole {
            Ordering::Less
        } else if y < whole {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    })
}

fn int_as_decimal(x: i64) -> Decoded {
    Decoded::Finite {
        negative: x < 0,
        coefficient: u128::from(x.unsigned_abs()),
        exponent: 0,
    }
}

/// A rank for the non-finite cases: NaN < -inf < finite < +inf.
fn special_rank(d: Decoded) -> i8 {
    match d {
        Decoded::NaN => 0,
        Decoded::Infinity { negative: true } => 1,
        Decoded::Finite { .. } => 2,
        Decoded::Infinity { negative: false } => 3,
    }
}

fn compare_decimals(x: Decoded, y: Decoded) -> Ordering {
    let (
        Decoded::Finite {
            negative: nx,
            coefficient: cx,
            exponent: ex,
        },
        Decoded::Finite {
            negative: ny,
            coefficient: cy,
            exponent: ey,
        },
    ) = (x, y)
    else {
        return special_rank(x).cmp(&special_rank(y));
    };
    let sx = if cx == 0 {
        0
    } else if nx {
        -1
    } else {
        1
    };
    let sy = if cy == 0 {
        0
    } else if ny {
        -1
    } else {
        1
    };
    if sx != sy || sx == 0 {
        return sx.cmp(&sy);
    }
    let magnitude = decimal::compare_magnitudes(cx, ex, cy, ey);
    if sx < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

fn double_as_special(y: f64) -> Option<Decoded> {
    if y.is_nan() {
        Some(Decoded::NaN)
    } else if y.is_infinite() {
        Some(Decoded::Infinity { negative: y < 0.0 })
    } else {
        None
    }
}

/// Exact comparison of a decimal with a double. (MongoDB first rounds the double to 34 decimal
/// digits; the two agree except for values that differ beyond the 34th significant digit.)
fn compare_decimal_double(x: Decoded, y: f64) -> Ordering {
    if let Some(special) = double_as_special(y) {
        return compare_decimals(x, special);
    }
    let Decoded::Finite {
        negative,
        coefficient,
        exponent,
    } = x
    else {
        return special_rank(x).cmp(&2);
    };
    let approx = decimal::encode(negative, coefficient, exponent).to_f64();
    // Correct rounding is monotone: if the rounded decimal differs from y, it orders like the
    // decimal itself. Only an exact tie needs exact arithmetic.
    let coarse = compare_doubles(approx, y);
    if coarse != Ordering::Equal {
        return coarse;
    }
    exact_decimal_vs_double(negative, coefficient, exponent, y)
}

fn exact_decimal_vs_double(negative: bool, coefficient: u128, exponent: i32, y: f64) -> Ordering {
    let y_negative = y.is_sign_negative() && y != 0.0;
    let d_sign = if coefficient == 0 {
        0
    } else if negative {
        -1
    } else {
        1
    };
    let y_sign = if y == 0.0 {
        0
    } else if y_negative {
        -1
    } else {
        1
    };
    if d_sign != y_sign || d_sign == 0 {
        return d_sign.cmp(&y_sign);
    }
    let (mantissa, power_of_two) = decompose(y.abs());
    let magnitude = super::bigint::compare_scaled(coefficient, exponent, mantissa, power_of_two);
    if d_sign < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// A finite positive double as `mantissa × 2^exponent`.
fn decompose(y: f64) -> (u64, i32) {
    let bits = y.to_bits();
    let exponent_bits = ((bits >> 52) & 0x7FF) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if exponent_bits == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), exponent_bits - 1075)
    }
}

/// An order-preserving 64-bit image of a number (via the nearest double; NaN lowest).
pub fn order_bits(v: &KeyValue) -> u64 {
    let x = match v {
        KeyValue::Int32(i) => f64::from(*i),
        KeyValue::Int64(i) => *i as f64,
        KeyValue::Double(d) => *d,
        KeyValue::Decimal(d) => d.to_f64(),
        _ => 0.0,
    };
    if x.is_nan() {
        return 0;
    }
    let x = if x == 0.0 { 0.0 } else { x }; // -0 == 0
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// `safeNumberLongForHash`: the integer MongoDB hashes for a number.
pub fn hash_long(v: &KeyValue) -> i64 {
    match v {
        KeyValue::Int32(i) => i64::from(*i),
        KeyValue::Int64(i) => *i,
        KeyValue::Double(d) => double_for_hash(*d),
        KeyValue::Decimal(d) => d.to_i64_for_hash(),
        _ => 0,
    }
}

fn double_for_hash(d: f64) -> i64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if d.is_nan() {
        0
    } else if d == TWO_63 {
        i64::MIN // MongoDB's compatibility quirk: exactly 2^63 hashes as the minimum
    } else if d >= TWO_63 {
        i64::MAX
    } else if d < -TWO_63 {
        i64::MIN
    } else {
        d as i64 // truncation toward zero
    }
}
