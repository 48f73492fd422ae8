package results

import (
	"time"

	"codeberg.org/go-pdf/fpdf"
)

// pdfDate is the creation and modification date every PDF figure carries. gonum's vgpdf
// leaves fpdf's default, the time of writing, which would make two identical runs differ;
// a fixed date, with fpdf's sorted catalogs, keeps an output directory byte for byte the
// same for the same scenario and seed.
var pdfDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func init() {
	fpdf.SetDefaultCreationDate(pdfDate)
	fpdf.SetDefaultModificationDate(pdfDate)
	fpdf.SetDefaultCatalogSort(true)
}
