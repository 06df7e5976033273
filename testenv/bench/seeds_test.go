package main

import (
	"slices"
	"testing"
)

func TestBenchSeeds(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want []int64
	}{
		{"default first seed", Options{Seeds: 3}, []int64{1, 2, 3}},
		{"from seed 4", Options{Seeds: 3, FirstSeed: 4}, []int64{4, 5, 6}},
		{"quick keeps two", Options{Seeds: 5, FirstSeed: 7, Quick: true}, []int64{7, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := benchSeeds(tc.o); !slices.Equal(got, tc.want) {
				t.Errorf("benchSeeds(%+v) = %v, want %v", tc.o, got, tc.want)
			}
		})
	}
}

func TestDeadlineSeeds(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want []int64
	}{
		{"default: nine days, 1-9, whatever -seeds", Options{Seeds: 10}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"three days from seed 4", Options{Seeds: 3, FirstSeed: 4, DeadlineDays: 3}, []int64{4, 5, 6}},
		{"quick keeps one", Options{Seeds: 3, FirstSeed: 7, Quick: true}, []int64{7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := deadlineSeeds(tc.o); !slices.Equal(got, tc.want) {
				t.Errorf("deadlineSeeds(%+v) = %v, want %v", tc.o, got, tc.want)
			}
		})
	}
}
