package results

import (
	"regexp"
	"strings"
)

// markdownInline escapes what Markdown would read as markup in running text or a table
// cell: each ASCII punctuation character that starts inline markup gets a backslash
// (CommonMark 0.31.2 section 2.4: any ASCII punctuation may be backslash-escaped), the table
// cell separator too (GFM tables), and '<' is written as the entity &lt; so that no raw HTML
// or autolink (sections 6.5, 6.6: both start with '<') survives, whatever renderer reads the
// file; line breaks become spaces. '>' is markup only at a line's start (markdownLine), so
// "h1->h2" is left as it is.
var markdownInline = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "!", `\!`, "~", `\~`,
	"|", `\|`, "<", "&lt;",
	"\r\n", " ", "\n", " ", "\r", " ")

// blockStart matches what opens a block at the start of a line: an ATX heading (#), a block
// quote (>), a list item (-, +, *, or digits then . or )), a thematic break or setext
// underline (=, -).
var blockStart = regexp.MustCompile(`^(\s*)([#>+=-]|\d+[.)])`)

// MarkdownText is s as literal Markdown text: what a user wrote (a variant's name, a
// description, a reason quoting either) shows as written, never as markup or HTML.
func MarkdownText(s string) string { return markdownInline.Replace(s) }

// markdownLine is MarkdownText for text that starts a line (a paragraph of the
// description): a character that would open a block there is escaped as well.
func markdownLine(s string) string {
	t := MarkdownText(s)
	if m := blockStart.FindStringSubmatchIndex(t); m != nil {
		t = t[:m[4]] + `\` + t[m[4]:]
	}
	return t
}
