"""Citations in place: the PDF page or photo with the passage marked, the recording at its
range, the sheet's rows, the text around a passage; and each document's original file."""
