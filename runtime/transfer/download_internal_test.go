package transfer

import "testing"

func TestContentDisposition(t *testing.T) {
	tests := []struct{ name, want string }{
		{"", "attachment"},
		{"report.pdf", `attachment; filename="report.pdf"`},
		{"Q3 \"final\".txt", `attachment; filename="Q3 _final_.txt"; filename*=UTF-8''Q3%20%22final%22.txt`},
		{"résumé.pdf", `attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`},
		{"a/b\\c\r\nd.txt", `attachment; filename="a_b_c__d.txt"; filename*=UTF-8''a%2Fb%5Cc%0D%0Ad.txt`},
		{"evil\u202efdp.exe", `attachment; filename="evil_fdp.exe"; filename*=UTF-8''evil%E2%80%AEfdp.exe`},
		{"bad\xffutf8", "attachment"},
	}
	for _, tt := range tests {
		if got := contentDisposition(tt.name); got != tt.want {
			t.Errorf("contentDisposition(%q)\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
