package experiment

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// inked reports whether a pixel is drawn on (not the white background).
func inked(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r < 0xf000 || g < 0xf000 || b < 0xf000
}

// checkRenderedPNG holds a rendered figure to what a printed page needs: it decodes, it is
// not blank (at least 0.5% of its pixels drawn: at 160 dpi a line anti-aliases onto fewer
// pixels round it than at 96, so a sparse drawing inks less than 1%), and nothing runs off
// it: a frame of borderPx pixels around the image is background, so no legend row, label
// or line is cut at an edge (a legend that ran off the bottom would ink the last rows).
func checkRenderedPNG(t *testing.T, name string, data []byte) {
	t.Helper()
	const borderPx = 3
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err, "%s.png", name)
	bo := img.Bounds()
	drawn := 0
	for y := bo.Min.Y; y < bo.Max.Y; y++ {
		for x := bo.Min.X; x < bo.Max.X; x++ {
			if !inked(img, x, y) {
				continue
			}
			drawn++
			edge := x < bo.Min.X+borderPx || x >= bo.Max.X-borderPx || y >= bo.Max.Y-borderPx
			require.False(t, edge, "%s.png: drawn at the edge (%d, %d) of %dx%d: something runs off the image", name, x, y, bo.Dx(), bo.Dy())
		}
	}
	require.Greater(t, drawn, bo.Dx()*bo.Dy()/200, "%s.png is blank", name)
}

// checkPDF renders a PDF figure with poppler's pdftoppm and checks the page as a PNG.
func checkPDF(t *testing.T, name string, data []byte) {
	t.Helper()
	tool, err := exec.LookPath("pdftoppm")
	require.NoError(t, err, "pdftoppm (poppler-utils) renders the PDF figures in this test")
	dir := t.TempDir()
	in := filepath.Join(dir, name+".pdf")
	require.NoError(t, os.WriteFile(in, data, 0o644))
	out, err := exec.Command(tool, "-png", "-r", "72", "-singlefile", in, filepath.Join(dir, "page")).CombinedOutput()
	require.NoError(t, err, "pdftoppm %s.pdf: %s", name, out)
	page, err := os.ReadFile(filepath.Join(dir, "page.png"))
	require.NoError(t, err)
	checkRenderedPNG(t, name+" (PDF)", page)
}
