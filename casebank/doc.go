// Package casebank is data: real-world rulesets and rulebooks with their
// test cases and source texts, one folder each (see README.md beside this
// file), read through package folder like any user's folder. Its Go files
// are the tests that hold every folder to the casebank's rules (cases
// pass, quotes verify, periods declared and covered); this file only names
// the package so that the tools that list packages find it.
package casebank
