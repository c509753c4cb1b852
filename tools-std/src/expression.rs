//! The arithmetic of `calculate`: a recursive-descent evaluator with the precedence of
//! mathematics (and of Python's `-2**2`), which no evaluator we tried gets right (exmex
//! read `-2^2` as `(-2)^2`).
//!
//! From loosest to tightest:
//!
//! | Level | Operators | Associativity |
//! |---|---|---|
//! | sum | `a + b`, `a - b` | left: `1-2-3 = -4` |
//! | product | `a * b`, `a / b` | left: `8/2/2 = 2` |
//! | sign | `-a`, `+a` | prefix: `-2^2 = -4`, `2*-3 = -6`, `--2 = 2` |
//! | power | `a ^ b` (also `a ** b`) | right: `2^3^2 = 512`; the exponent may carry a sign: `2^-1 = 0.5` |
//! | atom | numbers (`2`, `0.5`, `1e3`), constants, `f(x)`, `(a)` | |

use std::fmt;

/// How deeply parentheses, signs and powers may nest (the evaluator recurses once a level).
const MAX_DEPTH: usize = 200;

/// What is wrong with an expression, and where (a 1-based character position).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExpressionError {
    /// What went wrong.
    pub(crate) problem: String,
    /// The 1-based character position it went wrong at; one past the end for "the end".
    pub(crate) position: usize,
    /// Whether `position` is the end of the expression.
    pub(crate) at_end: bool,
    /// Whether the expression is malformed (rather than well formed with no value, like
    /// `1/0`).
    pub(crate) syntax: bool,
}

impl fmt::Display for ExpressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at_end {
            write!(
                f,
                "{} at position {} (the end of the expression)",
                self.problem, self.position
            )
        } else {
            write!(f, "{} at position {}", self.problem, self.position)
        }
    }
}

/// The value of `expression`, or what is wrong with it and where.
pub(crate) fn evaluate(expression: &str) -> Result<f64, ExpressionError> {
    let tokens = tokenize(expression)?;
    let end = expression.chars().count() + 1;
    let mut parser = Parser {
        tokens,
        next: 0,
        end,
        depth: 0,
    };
    let value = parser.sum()?;
    match parser.peek() {
        None => Ok(value),
        Some(token) => Err(parser.error_at(
            token.position,
            format!(
                "unexpected {} after a complete expression (is an operator missing?)",
                token.kind
            ),
        )),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Number(f64),
    Name(String),
    Plus,
    Minus,
    Times,
    Divide,
    Power,
    Open,
    Close,
    Comma,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Number(n) => write!(f, "number `{n}`"),
            Kind::Name(name) => write!(f, "`{name}`"),
            Kind::Plus => f.write_str("`+`"),
            Kind::Minus => f.write_str("`-`"),
            Kind::Times => f.write_str("`*`"),
            Kind::Divide => f.write_str("`/`"),
            Kind::Power => f.write_str("`^`"),
            Kind::Open => f.write_str("`(`"),
            Kind::Close => f.write_str("`)`"),
            Kind::Comma => f.write_str("`,`"),
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    /// 1-based character position of the token's first character.
    position: usize,
}

fn tokenize(expression: &str) -> Result<Vec<Token>, ExpressionError> {
    let chars: Vec<char> = expression.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let position = i + 1;
        let single = match c {
            '+' => Some(Kind::Plus),
            '-' | '−' => Some(Kind::Minus),
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                Some(Kind::Power)
            }
            '*' | '×' => Some(Kind::Times),
            '/' | '÷' => Some(Kind::Divide),
            '^' => Some(Kind::Power),
            '(' => Some(Kind::Open),
            ')' => Some(Kind::Close),
            ',' => Some(Kind::Comma),
            _ => None,
        };
        if let Some(kind) = single {
            tokens.push(Token { kind, position });
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            // An exponent: `1e3`, `2.5E-2` (only when digits follow, so `2e` stays an error).
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let text: String = chars[start..i].iter().collect();
            let value = text.parse::<f64>().map_err(|_| ExpressionError {
                problem: format!("`{text}` is not a number"),
                position,
                at_end: false,
                syntax: true,
            })?;
            tokens.push(Token {
                kind: Kind::Number(value),
                position,
            });
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token {
                kind: Kind::Name(chars[start..i].iter().collect()),
                position,
            });
        } else {
            return Err(ExpressionError {
                problem: format!("unexpected character `{c}`"),
                position,
                at_end: false,
                syntax: true,
            });
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    next: usize,
    /// One past the last character: where "the end" is.
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next)
    }

    fn peek_kind(&self) -> Option<&Kind> {
        self.peek().map(|t| &t.kind)
    }

    fn error_at(&self, position: usize, problem: String) -> ExpressionError {
        ExpressionError {
            problem,
            position,
            at_end: position >= self.end,
            syntax: true,
        }
    }

    /// An error in a well-formed expression (no value), at `position`.
    fn no_value_at(&self, position: usize, problem: String) -> ExpressionError {
        ExpressionError {
            syntax: false,
            ..self.error_at(position, problem)
        }
    }

    /// Where the next token is (or the end).
    fn here(&self) -> usize {
        self.peek().map_or(self.end, |t| t.position)
    }

    fn descend(&mut self) -> Result<(), ExpressionError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(
                self.here(),
                format!("the expression nests more than {MAX_DEPTH} levels deep"),
            ));
        }
        Ok(())
    }

    /// `a + b`, `a - b`, left to right.
    fn sum(&mut self) -> Result<f64, ExpressionError> {
        let mut value = self.product()?;
        loop {
            match self.peek_kind() {
                Some(Kind::Plus) => {
                    self.next += 1;
                    value += self.product()?;
                }
                Some(Kind::Minus) => {
                    self.next += 1;
                    value -= self.product()?;
                }
                _ => return Ok(value),
            }
        }
    }

    /// `a * b`, `a / b`, left to right.
    fn product(&mut self) -> Result<f64, ExpressionError> {
        let mut value = self.sign()?;
        loop {
            match self.peek_kind() {
                Some(Kind::Times) => {
                    self.next += 1;
                    value *= self.sign()?;
                }
                Some(Kind::Divide) => {
                    let position = self.here();
                    self.next += 1;
                    let divisor = self.sign()?;
                    if divisor == 0.0 {
                        return Err(self.no_value_at(
                            position,
                            "division by zero (the divisor of this `/` is 0)".to_owned(),
                        ));
                    }
                    value /= divisor;
                }
                _ => return Ok(value),
            }
        }
    }

    /// `-a`, `+a`: looser than `^`, so `-2^2` is `-(2^2)`.
    fn sign(&mut self) -> Result<f64, ExpressionError> {
        match self.peek_kind() {
            Some(Kind::Minus) => {
                self.next += 1;
                self.descend()?;
                let value = -self.sign()?;
                self.depth -= 1;
                Ok(value)
            }
            Some(Kind::Plus) => {
                self.next += 1;
                self.descend()?;
                let value = self.sign()?;
                self.depth -= 1;
                Ok(value)
            }
            _ => self.power(),
        }
    }

    /// `a ^ b`, right to left; the exponent is a signed power (`2^-1`, `2^3^2`).
    fn power(&mut self) -> Result<f64, ExpressionError> {
        let base = self.atom()?;
        if self.peek_kind() == Some(&Kind::Power) {
            self.next += 1;
            self.descend()?;
            let exponent = self.sign()?;
            self.depth -= 1;
            Ok(base.powf(exponent))
        } else {
            Ok(base)
        }
    }

    /// A number, a constant, a function call or a parenthesized expression.
    fn atom(&mut self) -> Result<f64, ExpressionError> {
        let Some(token) = self.peek().cloned() else {
            let after = match self.next.checked_sub(1).and_then(|i| self.tokens.get(i)) {
                Some(previous) => format!(" after {}", previous.kind),
                None => String::new(),
            };
            return Err(self.error_at(
                self.end,
                format!("expected a number, a constant, a function or `(`{after}"),
            ));
        };
        self.next += 1;
        match token.kind {
            Kind::Number(value) => Ok(value),
            Kind::Open => {
                self.descend()?;
                let value = self.sum()?;
                self.depth -= 1;
                self.expect_close(token.position)?;
                Ok(value)
            }
            Kind::Name(name) => self.name(&name, token.position),
            other => Err(self.error_at(
                token.position,
                format!("expected a number, a constant, a function or `(`, found {other}"),
            )),
        }
    }

    fn expect_close(&mut self, open: usize) -> Result<(), ExpressionError> {
        match self.peek_kind() {
            Some(Kind::Close) => {
                self.next += 1;
                Ok(())
            }
            Some(other) => Err(self.error_at(
                self.here(),
                format!("the `(` at position {open} is not closed: expected `)`, found {other}"),
            )),
            None => Err(self.error_at(
                self.end,
                format!("the `(` at position {open} is not closed: add `)`"),
            )),
        }
    }

    /// A constant, or a function applied to its parenthesized arguments.
    fn name(&mut self, name: &str, position: usize) -> Result<f64, ExpressionError> {
        let lower = name.to_lowercase();
        match lower.as_str() {
            "pi" | "π" => return Ok(std::f64::consts::PI),
            "e" => return Ok(std::f64::consts::E),
            "tau" | "τ" => return Ok(std::f64::consts::TAU),
            _ => {}
        }
        let Some(arity) = function_arity(&lower) else {
            return Err(self.error_at(
                position,
                format!(
                    "unknown name `{name}` (there are no variables; the constants are pi, e, tau)"
                ),
            ));
        };
        let open = self.here();
        if self.peek_kind() != Some(&Kind::Open) {
            return Err(self.error_at(open, format!("`{name}` is a function: write `{lower}(x)`")));
        }
        self.next += 1;
        self.descend()?;
        let mut arguments = vec![self.sum()?];
        while self.peek_kind() == Some(&Kind::Comma) {
            self.next += 1;
            arguments.push(self.sum()?);
        }
        self.depth -= 1;
        self.expect_close(open)?;
        if arguments.len() != arity {
            return Err(self.error_at(
                position,
                format!(
                    "`{lower}` takes {arity} argument{}, not {}",
                    if arity == 1 { "" } else { "s" },
                    arguments.len()
                ),
            ));
        }
        let value = apply(&lower, &arguments);
        if value.is_nan() && arguments.iter().all(|a| !a.is_nan()) {
            let shown: Vec<String> = arguments.iter().map(|a| a.to_string()).collect();
            return Err(self.no_value_at(
                position,
                format!(
                    "`{lower}({})` is not a real number (outside the function's domain)",
                    shown.join(", ")
                ),
            ));
        }
        Ok(value)
    }
}

/// How many arguments a function takes, or `None` for no such function.
fn function_arity(name: &str) -> Option<usize> {
    match name {
        "atan2" | "min" | "max" => Some(2),
        "sqrt" | "cbrt" | "abs" | "exp" | "ln" | "log" | "log2" | "log10" | "sin" | "cos"
        | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh" | "floor" | "ceil"
        | "round" | "trunc" | "signum" | "fract" => Some(1),
        _ => None,
    }
}

/// `name` (one of [`function_arity`]'s) applied to its arguments (as many as it takes).
fn apply(name: &str, arguments: &[f64]) -> f64 {
    let x = arguments.first().copied().unwrap_or(f64::NAN);
    let y = arguments.get(1).copied().unwrap_or(f64::NAN);
    match name {
        "atan2" => x.atan2(y),
        "min" => x.min(y),
        "max" => x.max(y),
        "sqrt" => x.sqrt(),
        "cbrt" => x.cbrt(),
        "abs" => x.abs(),
        "exp" => x.exp(),
        "ln" | "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => x.round(),
        "trunc" => x.trunc(),
        "signum" => x.signum(),
        "fract" => x.fract(),
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        for (expression, expected) in [
            ("2^3^2", 512.0),
            ("-2^2", -4.0),
            ("(-2)^2", 4.0),
            ("2*-3", -6.0),
            ("7/2", 3.5),
            ("2^-1", 0.5),
            ("-2^-2", -0.25),
            ("--2", 2.0),
            ("-(2)^2", -4.0),
            ("1-2-3", -4.0),
            ("2*3^2", 18.0),
            ("8/2/2", 2.0),
            ("2/4*2", 1.0),
            ("1+2*3", 7.0),
            ("(1+2)*3", 9.0),
            ("2**3**2", 512.0),
            ("-2**2", -4.0),
            ("+2", 2.0),
            ("-+-2", 2.0),
            ("2^+1", 2.0),
            ("3-2^2", -1.0),
            ("-3^2+1", -8.0),
            ("2*-3^2", -18.0),
            ("2^-2^2", 0.0625),
            ("max(3, 9) - min(4, 1)", 8.0),
            ("1e3 + 2.5E-2", 1000.025),
            ("-sqrt(4)", -2.0),
            ("abs(-2)^2", 4.0),
            (".5 * 4", 2.0),
        ] {
            assert_eq!(evaluate(expression), Ok(expected), "{expression}");
        }
    }

    #[test]
    fn errors_name_the_problem_and_the_position() {
        for (expression, message) in [
            (
                "2^",
                "expected a number, a constant, a function or `(` after `^` at position 3 (the end of the expression)",
            ),
            (
                "(",
                "expected a number, a constant, a function or `(` after `(` at position 2 (the end of the expression)",
            ),
            (
                "(1+2",
                "the `(` at position 1 is not closed: add `)` at position 5 (the end of the expression)",
            ),
            (
                "1 / 0",
                "division by zero (the divisor of this `/` is 0) at position 3",
            ),
            (
                "1/(2-2)",
                "division by zero (the divisor of this `/` is 0) at position 2",
            ),
            (
                "x + 1",
                "unknown name `x` (there are no variables; the constants are pi, e, tau) at position 1",
            ),
            ("1 $ 2", "unexpected character `$` at position 3"),
            (
                "2 3",
                "unexpected number `3` after a complete expression (is an operator missing?) at position 3",
            ),
            (
                "1 + * 2",
                "expected a number, a constant, a function or `(`, found `*` at position 5",
            ),
            (
                "sqrt 4",
                "`sqrt` is a function: write `sqrt(x)` at position 6",
            ),
            ("max(1)", "`max` takes 2 arguments, not 1 at position 1"),
            (
                "sqrt(-1)",
                "`sqrt(-1)` is not a real number (outside the function's domain) at position 1",
            ),
            (
                "",
                "expected a number, a constant, a function or `(` at position 1 (the end of the expression)",
            ),
        ] {
            let error = evaluate(expression).expect_err(expression);
            assert_eq!(error.to_string(), message, "{expression}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}1{}", "(".repeat(500), ")".repeat(500));
        let error = evaluate(&deep).expect_err("too deep");
        assert!(error.problem.contains("nests more than 200"), "{error}");
        let signs = format!("{}1", "-".repeat(500));
        assert!(evaluate(&signs).is_err());
        assert_eq!(evaluate(&format!("{}1", "-".repeat(100))), Ok(1.0));
    }
}
