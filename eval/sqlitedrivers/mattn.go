//go:build !ncruces

package main

import _ "github.com/mattn/go-sqlite3"

const sqlite3Name = "mattn/go-sqlite3 (cgo)"
