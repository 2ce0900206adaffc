//go:build ncruces

package main

import _ "github.com/ncruces/go-sqlite3/driver"

const sqlite3Name = "ncruces/go-sqlite3 (wasm2go)"
