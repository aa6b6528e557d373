// At-most-once daily export in Go (standard library only): the new state goes through the
// save recipe of docs/writing-a-job.md (os.CreateTemp in the folder, Write, Sync, Close,
// os.Rename over sent.json, then Sync of the folder), then the report is POSTed.
//
//	kp-foreign-go-rename correct   as above
//	kp-foreign-go-rename buggy     no Sync of the folder: the rename may be lost in a power cut
//	                               after the POST, and the retry POSTs the date again
//
// Go makes its system calls itself, never through libc: even where the binary is dynamically
// linked (cgo's resolver, for net), the syscall shim sees none of its file operations.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
)

type state struct {
	Sent []string `json:"sent"`
}

func save(path string, data []byte, syncDir bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".state-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename: nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if !syncDir {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "export: "+format+"\n", args...)
	os.Exit(code)
}

func main() {
	if len(os.Args) != 2 || (os.Args[1] != "correct" && os.Args[1] != "buggy") {
		fail(2, "usage: %s correct|buggy", os.Args[0])
	}
	day := os.Getenv("KILLPOINT_BIZ_DATE")
	path := filepath.Join(os.Getenv("KILLPOINT_WORKDIR"), "sent.json")
	var st state
	text, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fail(1, "%v", err)
	}
	if len(bytes.TrimSpace(text)) > 0 && json.Unmarshal(text, &st) != nil {
		fail(3, "%s is corrupt (%d bytes), refusing to guess", path, len(text))
	}
	for _, d := range st.Sent {
		if d == day {
			fmt.Println(day, "was already sent")
			return
		}
	}
	st.Sent = append(st.Sent, day)
	data, _ := json.Marshal(st)
	if err := save(path, append(data, '\n'), os.Args[1] == "correct"); err != nil {
		fail(1, "save: %v", err)
	}
	body, _ := json.Marshal(map[string]any{"key": day, "biz_date": day,
		"payload": map[string]string{"report": "daily"}})
	resp, err := http.Post(os.Getenv("KILLPOINT_DOWNSTREAM")+"/publish", "application/json",
		bytes.NewReader(body))
	if err != nil {
		fail(1, "publish: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fail(1, "publish answered %s", resp.Status)
	}
	fmt.Println("published", day)
}
