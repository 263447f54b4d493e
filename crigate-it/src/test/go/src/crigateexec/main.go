// Command crigateexec is a Kubernetes remotecommand client built on the libraries Kubernetes
// itself uses (docker/spdystream for SPDY/3.1, gorilla/websocket), to check crigate's streaming
// server from the other side of the wire. It follows client-go's v4 (SPDY) and v5 (WebSocket)
// protocols and prints one JSON line: what the command wrote, and its exit code.
//
// Build in GOPATH mode: GO111MODULE=off GOPATH=<this tree>:/usr/share/gocode go build crigateexec
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/spdystream"
	"github.com/gorilla/websocket"
)

// streams is one session's channels, whichever protocol carries them.
type streams interface {
	writeStdin(data []byte) error
	closeStdin() error
	resize(width, height int) error
	// run reads stdout, stderr and the error channel until the server ends the session.
	run(out *output) (status []byte, err error)
}

// output collects what the command printed; safe for the reader and the scenario to share.
type output struct {
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	seen   chan struct{}
}

func (o *output) add(channel int, data []byte) {
	o.mu.Lock()
	if channel == 2 {
		o.stderr.Write(data)
	} else {
		o.stdout.Write(data)
	}
	o.mu.Unlock()
	select {
	case o.seen <- struct{}{}:
	default:
	}
}

func (o *output) contains(text string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Contains(o.stdout.String(), text)
}

// waitFor waits until stdout holds text, sending poke every interval while it does not (nil: nothing).
func (o *output) waitFor(text string, timeout time.Duration, poke func() error) error {
	deadline := time.Now().Add(timeout)
	for !o.contains(text) {
		if time.Now().After(deadline) {
			return fmt.Errorf("no %q in output within %s", text, timeout)
		}
		if poke != nil {
			if err := poke(); err != nil {
				return err
			}
		}
		select {
		case <-o.seen:
		case <-time.After(300 * time.Millisecond):
		}
	}
	return nil
}

// ---- SPDY/3.1, v4.channel.k8s.io, as client-go's spdy round tripper and streamProtocolV4

type spdyStreams struct {
	conn                                      *spdystream.Connection
	errorS, stdinS, stdoutS, stderrS, resizeS *spdystream.Stream
}

type bufferedConn struct {
	net.Conn
	reader *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.reader.Read(p) }

func dialSpdy(raw string, stdin, tty bool) (*spdyStreams, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	req, _ := http.NewRequest("POST", raw, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	for _, p := range []string{"v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"} {
		req.Header.Add("X-Stream-Protocol-Version", p)
	}
	if err := req.Write(conn); err != nil {
		return nil, err
	}
	reader := bufio.NewReader(conn)
	resp, err := http.ReadResponse(reader, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("upgrade refused: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	if got := resp.Header.Get("X-Stream-Protocol-Version"); got != "v4.channel.k8s.io" {
		return nil, fmt.Errorf("server chose protocol %q", got)
	}
	sc, err := spdystream.NewConnection(bufferedConn{conn, reader}, false)
	if err != nil {
		return nil, err
	}
	go sc.Serve(spdystream.NoOpStreamHandler)
	s := &spdyStreams{conn: sc}
	open := func(kind string) (*spdystream.Stream, error) {
		h := http.Header{}
		h.Set("streamType", kind)
		stream, err := sc.CreateStream(h, nil, false)
		if err != nil {
			return nil, err
		}
		return stream, stream.WaitTimeout(10 * time.Second)
	}
	// client-go opens the error stream first, then the others.
	if s.errorS, err = open("error"); err != nil {
		return nil, err
	}
	if stdin {
		if s.stdinS, err = open("stdin"); err != nil {
			return nil, err
		}
	}
	if s.stdoutS, err = open("stdout"); err != nil {
		return nil, err
	}
	if tty {
		if s.resizeS, err = open("resize"); err != nil {
			return nil, err
		}
	} else if s.stderrS, err = open("stderr"); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *spdyStreams) writeStdin(data []byte) error { _, err := s.stdinS.Write(data); return err }
func (s *spdyStreams) closeStdin() error            { return s.stdinS.Close() }
func (s *spdyStreams) resize(w, h int) error {
	return json.NewEncoder(s.resizeS).Encode(map[string]int{"Width": w, "Height": h})
}

func (s *spdyStreams) run(out *output) ([]byte, error) {
	var wg sync.WaitGroup
	copyFrom := func(stream *spdystream.Stream, channel int) {
		defer wg.Done()
		buf := make([]byte, 32*1024)
		for {
			n, err := stream.Read(buf)
			if n > 0 {
				out.add(channel, append([]byte(nil), buf[:n]...))
			}
			if err != nil {
				return
			}
		}
	}
	wg.Add(1)
	go copyFrom(s.stdoutS, 1)
	if s.stderrS != nil {
		wg.Add(1)
		go copyFrom(s.stderrS, 2)
	}
	status, err := io.ReadAll(s.errorS)
	wg.Wait()
	s.conn.Close()
	return status, err
}

// ---- WebSocket, v5.channel.k8s.io: [channel byte][data] per binary message; [255, n] closes n

type wsStreams struct {
	conn *websocket.Conn
	mu   sync.Mutex
}

func dialWebSocket(raw string) (*wsStreams, error) {
	target := strings.Replace(raw, "http://", "ws://", 1)
	dialer := websocket.Dialer{Subprotocols: []string{"v5.channel.k8s.io", "v4.channel.k8s.io"}, HandshakeTimeout: 10 * time.Second}
	conn, resp, err := dialer.Dial(target, nil)
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(resp.Body)
			return nil, fmt.Errorf("upgrade refused: %s: %s", resp.Status, strings.TrimSpace(string(body)))
		}
		return nil, err
	}
	if conn.Subprotocol() != "v5.channel.k8s.io" {
		return nil, fmt.Errorf("server chose subprotocol %q", conn.Subprotocol())
	}
	return &wsStreams{conn: conn}, nil
}

func (s *wsStreams) send(channel byte, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn.WriteMessage(websocket.BinaryMessage, append([]byte{channel}, data...))
}

func (s *wsStreams) writeStdin(data []byte) error { return s.send(0, data) }
func (s *wsStreams) closeStdin() error            { return s.send(255, []byte{0}) }
func (s *wsStreams) resize(w, h int) error {
	body, _ := json.Marshal(map[string]int{"Width": w, "Height": h})
	return s.send(4, body)
}

func (s *wsStreams) run(out *output) ([]byte, error) {
	var status []byte
	for {
		kind, message, err := s.conn.ReadMessage()
		if err != nil {
			if websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				return status, nil
			}
			return status, err
		}
		if kind != websocket.BinaryMessage || len(message) == 0 {
			continue
		}
		switch message[0] {
		case 1, 2:
			out.add(int(message[0]), message[1:])
		case 3:
			status = append(status, message[1:]...)
		}
	}
}

// ---- the session

// exitCode reads a metav1.Status as client-go's v4 error decoder does.
func exitCode(status []byte) (int, string) {
	if len(bytes.TrimSpace(status)) == 0 {
		return -1, "no status on the error channel"
	}
	var s struct {
		Status  string `json:"status"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Details struct {
			Causes []struct {
				Reason  string `json:"reason"`
				Message string `json:"message"`
			} `json:"causes"`
		} `json:"details"`
	}
	if err := json.Unmarshal(status, &s); err != nil {
		return -1, "status is not JSON: " + string(status)
	}
	if s.Status == "Success" {
		return 0, ""
	}
	if s.Reason == "NonZeroExitCode" {
		for _, cause := range s.Details.Causes {
			if cause.Reason == "ExitCode" {
				code, err := strconv.Atoi(cause.Message)
				if err == nil {
					return code, ""
				}
			}
		}
	}
	return -1, s.Message
}

func main() {
	target := flag.String("url", "", "the URL crigate's Exec or Attach returned")
	proto := flag.String("proto", "spdy", "spdy or ws")
	tty := flag.Bool("tty", false, "interactive terminal scenario: type a line, resize to 100x30, wait until the command sees it")
	stdin := flag.String("stdin", "", "without -tty: bytes to send on stdin before closing it")
	noStdin := flag.Bool("no-stdin", false, "open no stdin channel (attach)")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after")
	flag.Parse()

	var s streams
	var err error
	if *proto == "ws" {
		s, err = dialWebSocket(*target)
	} else {
		s, err = dialSpdy(*target, !*noStdin, *tty)
	}
	if err != nil {
		fail(err)
	}
	out := &output{seen: make(chan struct{}, 1)}
	type result struct {
		status []byte
		err    error
	}
	done := make(chan result, 1)
	go func() { st, err := s.run(out); done <- result{st, err} }()

	scenario := func() error {
		if *tty {
			if err := s.resize(80, 24); err != nil {
				return err
			}
			if err := s.writeStdin([]byte("hello\r")); err != nil {
				return err
			}
			if err := out.waitFor("got:hello", 30*time.Second, nil); err != nil {
				return err
			}
			if err := s.resize(100, 30); err != nil {
				return err
			}
			// The command prints its size for every line; the new size must reach the job's terminal.
			return out.waitFor("size:30 100", 30*time.Second, func() error { return s.writeStdin([]byte("\r")) })
		}
		if *noStdin {
			return nil
		}
		if err := s.writeStdin([]byte(*stdin)); err != nil {
			return err
		}
		return s.closeStdin()
	}
	if err := scenario(); err != nil {
		fail(fmt.Errorf("%v; output so far: %q", err, out.stdout.String()))
	}
	select {
	case r := <-done:
		code, message := exitCode(r.status)
		if r.err != nil && message == "" {
			message = r.err.Error()
		}
		out.mu.Lock()
		json.NewEncoder(os.Stdout).Encode(map[string]interface{}{
			"stdout": out.stdout.String(), "stderr": out.stderr.String(), "exitCode": code, "message": message})
		out.mu.Unlock()
	case <-time.After(*timeout):
		fail(fmt.Errorf("session did not end within %s; output: %q", *timeout, out.stdout.String()))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "crigateexec:", err)
	os.Exit(2)
}
