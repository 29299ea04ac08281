//! GetRandomPassword's generator: AWS's four character types (and the space), the exclusions,
//! and at least one character of each included type unless told otherwise. Drawn from the
//! operating system's random source, without modulo bias.

use crate::error::{invalid_parameter, SmError};

const LOWERCASE: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPERCASE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NUMBERS: &str = "0123456789";
/// The punctuation AWS draws from (GetRandomPassword's `ExcludePunctuation`).
const PUNCTUATION: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/// The default `PasswordLength`.
pub(crate) const DEFAULT_LENGTH: usize = 32;

/// What GetRandomPassword was asked for.
#[derive(Debug, Clone, Default)]
pub(crate) struct PasswordRules {
    pub(crate) length: usize,
    pub(crate) exclude_characters: String,
    pub(crate) exclude_numbers: bool,
    pub(crate) exclude_punctuation: bool,
    pub(crate) exclude_uppercase: bool,
    pub(crate) exclude_lowercase: bool,
    pub(crate) include_space: bool,
    /// Whether each included type must appear at least once (AWS's default: yes).
    pub(crate) require_each_included_type: bool,
}

impl PasswordRules {
    /// The character types left after the exclusions, each with the characters it may use;
    /// a type whose every character is excluded is left out. The space, when included, is
    /// its own type but is never required.
    fn types(&self) -> (Vec<Vec<char>>, Vec<char>) {
        let keep = |set: &str| -> Vec<char> { set.chars().filter(|c| !self.exclude_characters.contains(*c)).collect() };
        let types: Vec<Vec<char>> = [
            (self.exclude_lowercase, LOWERCASE),
            (self.exclude_uppercase, UPPERCASE),
            (self.exclude_numbers, NUMBERS),
            (self.exclude_punctuation, PUNCTUATION),
        ]
        .into_iter()
        .filter(|(excluded, _)| !excluded)
        .map(|(_, set)| keep(set))
        .filter(|chars| !chars.is_empty())
        .collect();
        let space = if self.include_space { keep(" ") } else { Vec::new() };
        (types, space)
    }

    /// A password following the rules, or AWS's refusal of rules no password can follow.
    pub(crate) fn generate(&self) -> Result<String, SmError> {
        let (types, space) = self.types();
        let pool: Vec<char> = types.iter().flatten().chain(space.iter()).copied().collect();
        if pool.is_empty() {
            return Err(invalid_parameter(
                "You can't exclude every character type: the password would have no characters to draw from.",
            ));
        }
        if self.require_each_included_type && self.length < types.len() {
            return Err(invalid_parameter(
                "Password length is too short based on the required types.",
            ));
        }
        let mut random = Random::default();
        let mut password: Vec<char> = Vec::with_capacity(self.length);
        if self.require_each_included_type {
            for chars in &types {
                password.push(chars[random.below(chars.len())]);
            }
        }
        while password.len() < self.length {
            password.push(pool[random.below(pool.len())]);
        }
        // Fisher–Yates, so the required characters are not always first.
        for i in (1..password.len()).rev() {
            password.swap(i, random.below(i + 1));
        }
        Ok(password.into_iter().collect())
    }
}

/// Uniform draws from the operating system's random source, fetched in blocks.
#[derive(Default)]
struct Random {
    block: Vec<u32>,
}

impl Random {
    fn next_u32(&mut self) -> u32 {
        if self.block.is_empty() {
            let mut bytes = [0u8; 256];
            getrandom::fill(&mut bytes).expect("the operating system's random source");
            self.block = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
        }
        self.block.pop().unwrap_or_default()
    }

    /// A number below `n` (which is at most a few hundred), every one equally likely.
    fn below(&mut self, n: usize) -> usize {
        let n = n as u32;
        // The largest multiple of n that fits: draws above it would favour small numbers.
        let zone = u32::MAX - (u32::MAX % n);
        loop {
            let draw = self.next_u32();
            if draw < zone {
                return (draw % n) as usize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use stratus_test_support::Rng;

    use super::*;

    fn rules(length: usize) -> PasswordRules {
        PasswordRules {
            length,
            require_each_included_type: true,
            ..PasswordRules::default()
        }
    }

    fn kinds(password: &str) -> [bool; 5] {
        let has = |set: &str| password.chars().any(|c| set.contains(c));
        [
            has(LOWERCASE),
            has(UPPERCASE),
            has(NUMBERS),
            has(PUNCTUATION),
            password.contains(' '),
        ]
    }

    #[test]
    fn default_rules_use_every_type_but_the_space() {
        for _ in 0..200 {
            let password = rules(DEFAULT_LENGTH).generate().unwrap();
            assert_eq!(password.chars().count(), DEFAULT_LENGTH);
            assert_eq!(kinds(&password), [true, true, true, true, false]);
        }
    }

    #[test]
    fn the_shortest_password_still_has_each_type() {
        for _ in 0..200 {
            assert_eq!(kinds(&rules(4).generate().unwrap()), [true, true, true, true, false]);
        }
        assert_eq!(
            rules(3).generate().unwrap_err().0.message,
            "Password length is too short based on the required types."
        );
    }

    #[test]
    fn excluded_characters_never_appear() {
        let mut asked = rules(120);
        asked.exclude_characters = "xyzDje@?!.".into();
        for _ in 0..100 {
            let password = asked.generate().unwrap();
            assert!(!password.chars().any(|c| "xyzDje@?!.".contains(c)), "{password}");
        }
    }

    #[test]
    fn a_type_wholly_excluded_by_characters_is_not_required() {
        let mut asked = rules(8);
        asked.exclude_characters = NUMBERS.into();
        asked.exclude_punctuation = true;
        asked.exclude_uppercase = true;
        let password = asked.generate().unwrap();
        assert!(password.chars().all(|c| c.is_ascii_lowercase()), "{password}");
    }

    #[test]
    fn nothing_left_to_draw_from_is_refused() {
        let mut asked = rules(8);
        asked.exclude_lowercase = true;
        asked.exclude_uppercase = true;
        asked.exclude_numbers = true;
        asked.exclude_punctuation = true;
        assert_eq!(asked.generate().unwrap_err().0.code, "InvalidParameterException");
        asked.include_space = true;
        assert_eq!(asked.generate().unwrap(), "        ");
    }

    #[test]
    fn draws_are_uniform_enough() {
        let mut random = Random::default();
        let mut counts = [0usize; 10];
        for _ in 0..100_000 {
            counts[random.below(10)] += 1;
        }
        assert!(counts.iter().all(|&n| (9_000..11_000).contains(&n)), "{counts:?}");
    }

    /// Property: any mix of options either is refused by name or gives a password of the
    /// asked length that keeps every rule (seeded, so a failure reproduces).
    #[test]
    fn every_mix_of_options_keeps_the_rules() {
        let mut rng = Rng(0x7061_7373_776f_7264);
        let all: Vec<char> = [LOWERCASE, UPPERCASE, NUMBERS, PUNCTUATION, " "]
            .concat()
            .chars()
            .collect();
        for _ in 0..3_000 {
            let flag = |rng: &mut Rng| rng.below(3) == 0;
            let asked = PasswordRules {
                length: 1 + rng.below(40),
                exclude_characters: (0..rng.below(30)).map(|_| all[rng.below(all.len())]).collect(),
                exclude_numbers: flag(&mut rng),
                exclude_punctuation: flag(&mut rng),
                exclude_uppercase: flag(&mut rng),
                exclude_lowercase: flag(&mut rng),
                include_space: flag(&mut rng),
                require_each_included_type: rng.below(2) == 0,
            };
            let Ok(password) = asked.generate() else { continue };
            assert_eq!(password.chars().count(), asked.length);
            assert!(!password.chars().any(|c| asked.exclude_characters.contains(c)));
            let [lower, upper, number, punct, space] = kinds(&password);
            assert!(!lower || !asked.exclude_lowercase);
            assert!(!upper || !asked.exclude_uppercase);
            assert!(!number || !asked.exclude_numbers);
            assert!(!punct || !asked.exclude_punctuation);
            assert!(!space || asked.include_space);
            if asked.require_each_included_type {
                let (types, _) = asked.types();
                for chars in types {
                    assert!(
                        password.chars().any(|c| chars.contains(&c)),
                        "{password} lacks one of {chars:?}"
                    );
                }
            }
        }
    }
}
