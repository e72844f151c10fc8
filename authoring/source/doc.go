// Package source turns an uploaded authoring source — statute or policy
// text as plain text, Markdown, HTML or PDF — into the text that quotes are
// verified against, and compares sources with one another. It is pure: no
// database, no HTTP; the only process it runs is poppler's pdftotext, for
// PDF uploads.
//
// # Extracting
//
// MediaType settles what an upload is from its declared Content-Type and
// its file name; Extract turns its bytes into UTF-8 text with LF line ends
// and paragraphs kept as blank-line separated blocks. Plain text and
// Markdown are kept as written (a quote is checked against what the author
// sees, so Markdown is not rendered); HTML loses its markup, scripts and
// styles; a PDF keeps its page boundaries in Extracted.Pages so a verified
// quote can be cited with its page (PageOf). Unreadable input wraps
// ErrUnreadable, input without text wraps ErrNoText, and an unknown type
// wraps ErrUnsupportedMediaType: all three are the uploader's to fix.
//
// A few hundred kilobytes of PDF can extract to tens of megabytes of text,
// so extraction is bounded: a Budget holds one request's limits (text per
// file, text of all its files together, and extraction time in all), and
// pdftotext's output is read as it comes and the process stopped as soon
// as a limit is passed (ErrTooLarge, ErrBudgetExceeded,
// ErrExtractionTimeout), so no more text than the limit is ever held.
//
// # Verifying quotes
//
// A quote is found in the extracted text by engine.SourceText (white space
// forgiven, nothing else), the rule publish and the casebank use too; a
// PDF match's offset gives its page through PageOf.
//
// # Comparing and covering
//
// Sign computes a MinHash Signature of a text's word 5-grams so a new
// upload that nearly duplicates a stored one can be flagged
// (NearDuplicateThreshold); signatures are stored, so their computation is
// fixed for good. Clauses splits a text into the units a statute reader
// recognises (paragraphs, enumerated provisions, sentences) and Coverage
// says which of them a ruleset's citations touch.
package source
