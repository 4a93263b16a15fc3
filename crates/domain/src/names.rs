//! Random display names for anonymous topic creators (decisions §2): `Blue Happy Elephant`.

use rand::{seq::SliceRandom, Rng};

const COLORS: [&str; 16] = [
    "Amber", "Blue", "Coral", "Crimson", "Golden", "Green", "Indigo", "Ivory", "Jade", "Lilac",
    "Orange", "Purple", "Red", "Silver", "Teal", "Violet",
];
const MOODS: [&str; 16] = [
    "Brave", "Calm", "Clever", "Cheerful", "Eager", "Gentle", "Happy", "Jolly", "Kind", "Lively",
    "Lucky", "Merry", "Proud", "Quiet", "Swift", "Witty",
];
const ANIMALS: [&str; 16] = [
    "Badger", "Beaver", "Dolphin", "Eagle", "Elephant", "Falcon", "Fox", "Giraffe", "Koala",
    "Lynx", "Otter", "Owl", "Panda", "Penguin", "Tiger", "Wolf",
];

/// Three capitalised words: a color, a mood and an animal.
pub fn random_name(rng: &mut impl Rng) -> String {
    let pick = |words: &[&'static str], rng: &mut _| *words.choose(rng).unwrap_or(&words[0]);
    let color = pick(&COLORS, rng);
    let mood = pick(&MOODS, rng);
    let animal = pick(&ANIMALS, rng);
    format!("{color} {mood} {animal}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_three_capitalised_words() {
        let name = random_name(&mut rand::thread_rng());
        let words: Vec<&str> = name.split(' ').collect();
        assert_eq!(words.len(), 3);
        assert!(words
            .iter()
            .all(|w| w.chars().next().unwrap().is_uppercase()));
    }
}
