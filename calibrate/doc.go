// Package calibrate learns the computing rate CR(node type, job class) —
// how fast a node type runs a class's map tasks, relative to a reference
// type (Lee §4.2, §4.3.1.4) — from finished task attempts, and keeps every
// attempt in a durable, crash-safe history (an embedded bbolt database) so
// a restart relearns nothing. A class with too few samples on a type is
// unknown, never guessed.
package calibrate
