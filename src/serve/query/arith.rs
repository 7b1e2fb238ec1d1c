//! Arithmetic with the server's number types (`db/pipeline/expression.cpp`: `ExpressionAdd`,
//! `ExpressionMultiply`, `ExpressionSubtract`, `ExpressionDivide`; `accumulator_sum.cpp`): two
//! int32s give an int32 until it overflows (then an int64), int64s an int64 until it overflows
//! (then a double), anything with a double a double; `$divide` is always a double. Decimal128 is
//! not handled (refused as a non-number).
//!
//! May import `reply`.

use bson::Bson;

use crate::cluster::MongoError;
use crate::serve::reply::type_name;

fn refused(code: i32, message: String) -> MongoError {
    MongoError {
        code,
        code_name: match code {
            16554 => "Location16554",
            16555 => "Location16555",
            16556 => "Location16556",
            16608 => "Location16608",
            16612 => "Location16612",
            _ => "Location16609",
        },
        message,
    }
}

/// A running sum in the widest type met so far (`accumulator_sum.cpp`'s `totalType`, its exact
/// `long` total while it fits, and the double total).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum {
    /// 0 int32, 1 int64, 2 double.
    widest: u8,
    long: Option<i64>,
    double: f64,
    any: bool,
}

impl Sum {
    /// Adds `v` when it is a number (others are ignored, as `$sum` ignores them); whether it was.
    pub fn add(&mut self, v: &Bson) -> bool {
        let (ty, as_long, as_double) = match v {
            Bson::Int32(n) => (0, Some(i64::from(*n)), f64::from(*n)),
            Bson::Int64(n) => (1, Some(*n), *n as f64),
            Bson::Double(d) => (2, None, *d),
            _ => return false,
        };
        if !self.any {
            self.long = Some(0);
        }
        self.any = true;
        self.widest = self.widest.max(ty);
        self.double += as_double;
        self.long = match (self.long, as_long) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
        true
    }

    /// The total as the server returns it: an int32 when every input was an int32 and it fits,
    /// an int64 while the exact total fits one, else a double.
    pub fn value(&self) -> Bson {
        match (self.widest, self.long) {
            (0, Some(n)) => i32::try_from(n).map_or(Bson::Int64(n), Bson::Int32),
            (1, Some(n)) => Bson::Int64(n),
            _ if !self.any => Bson::Int32(0),
            _ => Bson::Double(self.double),
        }
    }
}

/// `$add`: numbers (and one date plus milliseconds); null or missing gives null.
pub fn add_all(args: Vec<Option<Bson>>) -> Result<Option<Bson>, MongoError> {
    let mut sum = Sum::default();
    sum.add(&Bson::Int32(0));
    let mut date: Option<i64> = None;
    for a in args {
        match a {
            None | Some(Bson::Null | Bson::Undefined) => return Ok(Some(Bson::Null)),
            Some(Bson::DateTime(d)) if date.is_none() => date = Some(d.timestamp_millis()),
            Some(Bson::DateTime(_)) => {
                return Err(refused(
                    16612,
                    "only one date allowed in an $add expression".into(),
                ));
            }
            Some(v) => {
                if !sum.add(&v) {
                    return Err(refused(
                        16554,
                        format!(
                            "$add only supports numeric or date types, not {}",
                            type_name(&v)
                        ),
                    ));
                }
            }
        }
    }
    Ok(Some(match date {
        Some(ms) => {
            let add = match sum.value() {
                Bson::Int32(n) => i64::from(n),
                Bson::Int64(n) => n,
                Bson::Double(d) => d.round() as i64,
                _ => 0,
            };
            Bson::DateTime(bson::DateTime::from_millis(ms.saturating_add(add)))
        }
        None => sum.value(),
    }))
}

/// `$multiply`: numbers only; null or missing gives null.
pub fn multiply_all(args: Vec<Option<Bson>>) -> Result<Option<Bson>, MongoError> {
    let mut widest = 0u8;
    let mut long: Option<i64> = Some(1);
    let mut double = 1.0f64;
    for a in args {
        let (ty, l, d) = match a {
            None | Some(Bson::Null | Bson::Undefined) => return Ok(Some(Bson::Null)),
            Some(Bson::Int32(n)) => (0, Some(i64::from(n)), f64::from(n)),
            Some(Bson::Int64(n)) => (1, Some(n), n as f64),
            Some(Bson::Double(d)) => (2, None, d),
            Some(other) => {
                return Err(refused(
                    16555,
                    format!(
                        "$multiply only supports numeric types, not {}",
                        type_name(&other)
                    ),
                ));
            }
        };
        widest = widest.max(ty);
        double *= d;
        long = match (long, l) {
            (Some(a), Some(b)) => a.checked_mul(b),
            _ => None,
        };
    }
    Ok(Some(match (widest, long) {
        (0, Some(n)) => i32::try_from(n).map_or(Bson::Int64(n), Bson::Int32),
        (1, Some(n)) => Bson::Int64(n),
        _ => Bson::Double(double),
    }))
}

/// `$subtract`: numbers, a date minus milliseconds (a date), or two dates (milliseconds, a long).
pub fn subtract(a: Option<Bson>, b: Option<Bson>) -> Result<Option<Bson>, MongoError> {
    let Some((a, b)) = both_present(a, b) else {
        return Ok(Some(Bson::Null));
    };
    Ok(Some(match (&a, &b) {
        (Bson::DateTime(x), Bson::DateTime(y)) => {
            Bson::Int64(x.timestamp_millis() - y.timestamp_millis())
        }
        (Bson::DateTime(x), n) if number(n).is_some() => {
            let ms = number(n).unwrap_or(0.0).round() as i64;
            Bson::DateTime(bson::DateTime::from_millis(x.timestamp_millis() - ms))
        }
        (x, y) if number(x).is_some() && number(y).is_some() => {
            let negated = match y {
                Bson::Int32(n) => n
                    .checked_neg()
                    .map_or(Bson::Int64(-i64::from(*n)), Bson::Int32),
                Bson::Int64(n) => n
                    .checked_neg()
                    .map_or(Bson::Double(-(*n as f64)), Bson::Int64),
                Bson::Double(d) => Bson::Double(-d),
                _ => Bson::Null,
            };
            return add_all(vec![Some(x.clone()), Some(negated)]);
        }
        _ => {
            return Err(refused(
                16556,
                format!(
                    "cant $subtract a {} from a {}",
                    type_name(&b),
                    type_name(&a)
                ),
            ));
        }
    }))
}

/// Both operands, when neither is missing, null or undefined (the operator then answers null).
fn both_present(a: Option<Bson>, b: Option<Bson>) -> Option<(Bson, Bson)> {
    let present = |v: &Bson| !matches!(v, Bson::Null | Bson::Undefined);
    match (a, b) {
        (Some(a), Some(b)) if present(&a) && present(&b) => Some((a, b)),
        _ => None,
    }
}

fn number(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(d) => Some(*d),
        _ => None,
    }
}

/// `$divide`: a double; by zero refused (16608).
pub fn divide(a: Option<Bson>, b: Option<Bson>) -> Result<Option<Bson>, MongoError> {
    let Some((a, b)) = both_present(a, b) else {
        return Ok(Some(Bson::Null));
    };
    match (number(&a), number(&b)) {
        (Some(_), Some(0.0)) => Err(refused(16608, "can't $divide by zero".into())),
        (Some(x), Some(y)) => Ok(Some(Bson::Double(x / y))),
        _ => Err(refused(
            16609,
            format!(
                "$divide only supports numeric types, not {} and {}",
                type_name(&a),
                type_name(&b)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn sums_keep_the_servers_types() {
        let mut s = Sum::default();
        s.add(&Bson::Int32(i32::MAX));
        s.add(&Bson::Int32(1));
        assert_eq!(s.value(), Bson::Int64(i64::from(i32::MAX) + 1));
        s.add(&Bson::Int32(-1));
        assert_eq!(s.value(), Bson::Int32(i32::MAX), "back in range: an int");
        let mut l = Sum::default();
        l.add(&Bson::Int64(i64::MAX));
        l.add(&Bson::Int64(1));
        assert!(matches!(l.value(), Bson::Double(_)));
        assert_eq!(Sum::default().value(), Bson::Int32(0));
        let m = multiply_all(vec![Some(Bson::Int32(70_000)), Some(Bson::Int32(70_000))]);
        assert_eq!(m.unwrap(), Some(Bson::Int64(4_900_000_000)));
        assert_eq!(
            divide(Some(Bson::Int32(1)), Some(Bson::Int32(0)))
                .unwrap_err()
                .code,
            16608
        );
    }
}
