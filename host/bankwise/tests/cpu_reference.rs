//! The CPU references against hand-made cases, and their properties on random shapes.

use bankwise::cpu::{first_bit_difference, transpose};
use bankwise::{Error, Shape};
use proptest::prelude::*;

#[test]
fn transposes_a_2x3_matrix() {
    // [[1, 2, 3], [4, 5, 6]] → [[1, 4], [2, 5], [3, 6]]
    assert_eq!(transpose(&[1, 2, 3, 4, 5, 6], Shape::new(2, 3)).unwrap(), [1, 4, 2, 5, 3, 6]);
}

#[test]
fn a_row_becomes_a_column_with_the_same_memory() {
    let v: Vec<u16> = (0..7).collect();
    assert_eq!(transpose(&v, Shape::new(1, 7)).unwrap(), v);
    assert_eq!(transpose(&v, Shape::new(7, 1)).unwrap(), v);
    assert_eq!(transpose(&[9u8], Shape::new(1, 1)).unwrap(), [9]);
}

#[test]
fn transposes_each_matrix_of_a_batch() {
    // Two 2×2 matrices: [[0, 1], [2, 3]] and [[4, 5], [6, 7]].
    assert_eq!(transpose(&[0, 1, 2, 3, 4, 5, 6, 7], Shape::batched(2, 2, 2)).unwrap(), [0, 2, 1, 3, 4, 6, 5, 7]);
}

#[test]
fn transposes_across_cache_blocks() {
    // 67 × 130 crosses the 64-element blocking in both directions.
    let (rows, cols) = (67, 130);
    let v: Vec<u32> = (0..rows * cols).map(|i| i as u32).collect();
    let t = transpose(&v, Shape::new(rows, cols)).unwrap();
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(t[c * rows + r], (r * cols + c) as u32);
        }
    }
}

#[test]
fn rejects_bad_input() {
    assert!(matches!(
        transpose(&[1, 2, 3], Shape::new(2, 2)),
        Err(Error::LengthMismatch { expected: 4, actual: 3, .. })
    ));
    assert!(matches!(transpose::<u8>(&[], Shape::new(0, 2)), Err(Error::ZeroDimension { what: "rows" })));
}

#[test]
fn bit_comparison_sees_signed_zeros_and_matches_equal_nans() {
    assert_eq!(first_bit_difference(&[0.0f32, 1.0], &[0.0, 1.0]), None);
    assert_eq!(first_bit_difference(&[1.0f32, -0.0], &[1.0, 0.0]), Some(1));
    let nan = f64::from_bits(0x7ff8_0000_dead_beef);
    assert_eq!(first_bit_difference(&[nan], &[nan]), None);
    assert_eq!(first_bit_difference(&[1u8, 2], &[1u8]), Some(1));
    let mut big = vec![7u16; 200_000];
    let want = big.clone();
    big[150_001] = 8;
    assert_eq!(first_bit_difference(&big, &want), Some(150_001));
}

proptest! {
    #[test]
    fn transposing_twice_is_the_identity(batch in 1usize..4, rows in 1usize..90, cols in 1usize..90, seed: u64) {
        let shape = Shape::batched(batch, rows, cols);
        let v: Vec<u64> = (0..shape.elements().unwrap() as u64).map(|i| i.wrapping_mul(seed | 1)).collect();
        let t = transpose(&v, shape).unwrap();
        prop_assert_eq!(transpose(&t, shape.transposed()).unwrap(), v);
    }

    #[test]
    fn every_element_lands_at_its_transposed_place(rows in 1usize..70, cols in 1usize..70, b in 0usize..3) {
        let shape = Shape::batched(3, rows, cols);
        let v: Vec<u32> = (0..shape.elements().unwrap() as u32).collect();
        let t = transpose(&v, shape).unwrap();
        let (r, c) = (rows / 2, cols - 1);
        prop_assert_eq!(t[(b * cols + c) * rows + r], ((b * rows + r) * cols + c) as u32);
    }
}
