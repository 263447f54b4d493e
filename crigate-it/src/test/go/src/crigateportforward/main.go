// Command crigateportforward is a Kubernetes port-forward client built on the SPDY library
// Kubernetes itself uses (docker/spdystream), to check crigate's streaming server from the other
// side of the wire. It speaks portforward.k8s.io as client-go does: each forwarded connection is an
// error stream and then a data stream, paired by a requestID header. It sends the same bytes on
// every connection and prints one JSON line: what came back on each data and error stream.
//
// Build in GOPATH mode: GO111MODULE=off GOPATH=<this tree>:/usr/share/gocode go build crigateportforward
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
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
)

const portForwardProtocol = "portforward.k8s.io"

// The kubelet's stream creation timeout: the server replies at once, or not at all.
const replyTimeout = 10 * time.Second

// connection is one forwarded connection as printed.
type connection struct {
	Port        int    `json:"port"`
	RequestID   string `json:"requestID"`
	Data        string `json:"data"`
	Error       string `json:"error"`
	ClientError string `json:"clientError"`
}

type options struct {
	send          []byte
	halfClose     bool
	withRequestID bool
	timeout       time.Duration
}

// ---- how the server ended each stream

// streamEnds records how the server ended each stream. spdystream hands a reader the same io.EOF
// for a FIN, a RST_STREAM and a dropped connection; a test must tell a clean close from a reset,
// so the frame headers are read here as the bytes arrive, before spdystream acts on them.
type streamEnds struct {
	mu sync.Mutex
	// pending holds the start of a frame until the part naming its stream has arrived.
	pending []byte
	// skip counts the bytes of the current frame that follow what this needs to see.
	skip int
	// ended maps a stream id to finEnd or the status name of the server's RST_STREAM.
	ended          map[uint32]string
	connectionLost bool
}

const (
	frameHeaderLength = 8
	synReplyFrame     = 2
	rstStreamFrame    = 3
	headersFrame      = 8
	finFlag           = 0x01
	finEnd            = "FIN"
)

var resetStatusNames = []string{"", "PROTOCOL_ERROR", "INVALID_STREAM", "REFUSED_STREAM",
	"UNSUPPORTED_VERSION", "CANCEL", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "STREAM_IN_USE",
	"STREAM_ALREADY_CLOSED", "INVALID_CREDENTIALS", "FRAME_TOO_LARGE"}

func (e *streamEnds) observe(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.skip > 0 {
		n := e.skip
		if n > len(p) {
			n = len(p)
		}
		e.skip -= n
		p = p[n:]
	}
	e.pending = append(e.pending, p...)
	for len(e.pending) >= frameHeaderLength {
		frame := e.pending
		payloadLength := int(frame[5])<<16 | int(frame[6])<<8 | int(frame[7])
		frameLength := frameHeaderLength + payloadLength
		control := frame[0]&0x80 != 0
		kind := binary.BigEndian.Uint16(frame[2:4])
		fin := frame[4]&finFlag != 0
		visible := frameHeaderLength
		if control && (kind == synReplyFrame || kind == headersFrame) {
			visible += 4
		} else if control && kind == rstStreamFrame {
			visible += 8
		}
		if visible > frameLength {
			visible = frameLength
		}
		if len(frame) < visible {
			return
		}
		switch {
		case !control && fin:
			e.end(binary.BigEndian.Uint32(frame[0:4]), finEnd)
		case control && (kind == synReplyFrame || kind == headersFrame) && fin && visible >= 12:
			e.end(binary.BigEndian.Uint32(frame[8:12]), finEnd)
		case control && kind == rstStreamFrame && visible >= 16:
			status := binary.BigEndian.Uint32(frame[12:16])
			name := strconv.Itoa(int(status))
			if status < uint32(len(resetStatusNames)) && status > 0 {
				name = resetStatusNames[status]
			}
			e.end(binary.BigEndian.Uint32(frame[8:12]), name)
		}
		if len(frame) >= frameLength {
			e.pending = frame[frameLength:]
		} else {
			e.skip = frameLength - len(frame)
			e.pending = e.pending[:0]
		}
	}
}

func (e *streamEnds) end(stream uint32, how string) {
	stream &= 0x7fffffff
	if _, seen := e.ended[stream]; !seen {
		e.ended[stream] = how
	}
}

func (e *streamEnds) loseConnection() {
	e.mu.Lock()
	e.connectionLost = true
	e.mu.Unlock()
}

// problem says what was wrong with the way the server ended the stream, or "" for a FIN.
func (e *streamEnds) problem(name string, stream *spdystream.Stream) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	how, seen := e.ended[stream.Identifier()]
	switch {
	case how == finEnd:
		return ""
	case seen:
		return "the server reset the " + name + " stream (" + how + ")"
	case e.connectionLost:
		return "the connection ended before the server closed the " + name + " stream"
	default:
		return "the " + name + " stream ended without a FIN"
	}
}

// watchedConn is the upgraded connection: it serves the bytes that came after the 101 response
// first, and shows every byte read to streamEnds.
type watchedConn struct {
	net.Conn
	reader *bufio.Reader
	ends   *streamEnds
}

func (c watchedConn) Read(p []byte) (int, error) {
	n, err := c.reader.Read(p)
	c.ends.observe(p[:n])
	if err != nil {
		c.ends.loseConnection()
	}
	return n, err
}

// ---- the upgrade

func upgrade(raw string, offered []string) (*spdystream.Connection, *streamEnds, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, replyTimeout)
	if err != nil {
		return nil, nil, err
	}
	// Something that accepts but never answers must not hang the test.
	conn.SetDeadline(time.Now().Add(replyTimeout))
	req, _ := http.NewRequest("POST", raw, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	for _, p := range offered {
		req.Header.Add("X-Stream-Protocol-Version", p)
	}
	if err := req.Write(conn); err != nil {
		return nil, nil, err
	}
	reader := bufio.NewReader(conn)
	resp, err := http.ReadResponse(reader, req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		return nil, nil, fmt.Errorf("upgrade refused: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	chosen := resp.Header.Get("X-Stream-Protocol-Version")
	// A server may accept a client that offers nothing, as the kubelet still does for Kubernetes 1.0 clients.
	if chosen != portForwardProtocol && !(len(offered) == 0 && chosen == "") {
		return nil, nil, fmt.Errorf("server chose protocol %q, this client speaks only %s", chosen, portForwardProtocol)
	}
	conn.SetDeadline(time.Time{})
	ends := &streamEnds{ended: map[uint32]string{}}
	sc, err := spdystream.NewConnection(watchedConn{conn, reader, ends}, false)
	if err != nil {
		return nil, nil, err
	}
	go sc.Serve(spdystream.NoOpStreamHandler)
	return sc, ends, nil
}

// ---- one forwarded connection

func openStream(sc *spdystream.Connection, streamType, port, requestID string, withRequestID bool,
) (*spdystream.Stream, error) {
	h := http.Header{}
	h.Set("streamType", streamType)
	h.Set("port", port)
	if withRequestID {
		h.Set("requestID", requestID)
	}
	stream, err := sc.CreateStream(h, nil, false)
	if err != nil {
		return nil, fmt.Errorf("creating the %s stream: %v", streamType, err)
	}
	replied := make(chan error, 1)
	go func() { replied <- stream.WaitTimeout(replyTimeout) }()
	var replyErr error
	select {
	case replyErr = <-replied:
	case <-sc.CloseChan():
		// spdystream would wait out the timeout for a reply that cannot come; the short grace
		// lets it hand over a reply that arrived just before the end.
		select {
		case replyErr = <-replied:
		case <-time.After(time.Second):
			return nil, fmt.Errorf("the connection ended before the server replied to the %s stream", streamType)
		}
	}
	switch replyErr {
	case nil:
		return stream, nil
	case spdystream.ErrReset:
		return nil, fmt.Errorf("the server reset the %s stream instead of replying", streamType)
	case spdystream.ErrTimeout:
		stream.Reset()
		return nil, fmt.Errorf("no reply to the %s stream within %s", streamType, replyTimeout)
	default:
		stream.Reset()
		return nil, fmt.Errorf("%s stream: %v", streamType, replyErr)
	}
}

// drain reads stream to its end from the moment it is open: spdystream's frame workers wait for a
// reader, so an unread stream would hold up the others.
func drain(stream *spdystream.Stream, into *bytes.Buffer) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(into, stream)
	}()
	return done
}

// forward runs one forwarded connection; opened is closed once both of its streams exist.
func forward(sc *spdystream.Connection, ends *streamEnds, result *connection, opts options,
	opened chan<- struct{}) {
	var problems []string
	defer func() { result.ClientError = strings.Join(problems, "; ") }()
	var openedOnce sync.Once
	signalOpened := func() { openedOnce.Do(func() { close(opened) }) }
	defer signalOpened()

	port := strconv.Itoa(result.Port)
	errorStream, err := openStream(sc, "error", port, result.RequestID, opts.withRequestID)
	if err != nil {
		problems = append(problems, err.Error())
		return
	}
	var errorText, data bytes.Buffer
	errorDone := drain(errorStream, &errorText)
	// Nothing is ever written to the error stream: client-go says so at once, and so does this.
	errorStream.Close()
	dataStream, err := openStream(sc, "data", port, result.RequestID, opts.withRequestID)
	signalOpened()
	if err != nil {
		problems = append(problems, err.Error())
		errorStream.Reset()
		<-errorDone
		result.Error = errorText.String()
		return
	}
	dataDone := drain(dataStream, &data)
	deadline := time.After(opts.timeout)

	var writeProblems []string
	if len(opts.send) > 0 {
		if _, err := dataStream.Write(opts.send); err != nil {
			writeProblems = append(writeProblems, "writing to the data stream: "+err.Error())
		}
	}
	if opts.halfClose {
		if err := dataStream.Close(); err != nil {
			writeProblems = append(writeProblems, "half-closing the data stream: "+err.Error())
		}
	}

	var stillOpen []string
	for dataDone != nil || errorDone != nil {
		select {
		case <-dataDone:
			dataDone = nil
			if problem := ends.problem("data", dataStream); problem != "" {
				problems = append(problems, problem)
				// Writing fails or not depending on when the reset or the loss arrived: report only the cause.
				writeProblems = nil
			}
		case <-errorDone:
			errorDone = nil
			if problem := ends.problem("error", errorStream); problem != "" {
				problems = append(problems, problem)
			}
		case <-deadline:
			if dataDone != nil {
				stillOpen = append(stillOpen, "data")
			}
			if errorDone != nil {
				stillOpen = append(stillOpen, "error")
			}
			streams := "stream was"
			if len(stillOpen) > 1 {
				streams = "streams were"
			}
			problems = append(problems, fmt.Sprintf("timeout: the %s %s still open after %s",
				strings.Join(stillOpen, " and "), streams, opts.timeout))
			// A reset ends the readers at once, and tells the server this side gave up.
			dataStream.Reset()
			errorStream.Reset()
			if dataDone != nil {
				<-dataDone
			}
			if errorDone != nil {
				<-errorDone
			}
			dataDone, errorDone = nil, nil
		}
	}
	problems = append(writeProblems, problems...)
	result.Data = data.String()
	result.Error = errorText.String()
}

func parsePorts(list string) ([]int, error) {
	var ports []int
	for _, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		// Out-of-range numbers are sent as they are: the server must refuse them, not this client.
		port, err := strconv.Atoi(entry)
		if err != nil {
			return nil, fmt.Errorf("port %q is not a number", entry)
		}
		ports = append(ports, port)
	}
	return ports, nil
}

func main() {
	target := flag.String("url", "", "the URL crigate's PortForward returned")
	portList := flag.String("ports", "", "comma-separated ports, one forwarded connection each; a port may repeat")
	send := flag.String("send", "", "bytes to write on every data stream")
	halfClose := flag.Bool("half-close", false, "close the data stream for writing (SPDY FIN) after sending")
	noRequestID := flag.Bool("no-request-id", false,
		"send no requestID header, as clients before Kubernetes 1.6 did, so the server pairs streams by id")
	timeout := flag.Duration("timeout", 30*time.Second,
		"per connection: how long to wait for the server to close both streams")
	protocol := flag.String("protocol", portForwardProtocol, "comma-separated protocols to offer; empty offers none")
	flag.Parse()
	if *target == "" {
		usage("-url is required")
	}
	ports, err := parsePorts(*portList)
	if err != nil {
		usage(err.Error())
	}
	var offered []string
	for _, p := range strings.Split(*protocol, ",") {
		if p = strings.TrimSpace(p); p != "" {
			offered = append(offered, p)
		}
	}

	sc, ends, err := upgrade(*target, offered)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crigateportforward:", err)
		os.Exit(1)
	}
	opts := options{send: []byte(*send), halfClose: *halfClose, withRequestID: !*noRequestID, timeout: *timeout}
	results := make([]connection, len(ports))
	var wg sync.WaitGroup
	// Without a requestID the server pairs an error stream with the data stream whose id follows
	// it, so then each connection opens its pair only once the one before has opened its own.
	previousOpened := make(chan struct{})
	close(previousOpened)
	for i, port := range ports {
		results[i] = connection{Port: port}
		if opts.withRequestID {
			results[i].RequestID = strconv.Itoa(i)
		}
		opened := make(chan struct{})
		wg.Add(1)
		go func(result *connection, after <-chan struct{}, opened chan<- struct{}) {
			defer wg.Done()
			if !opts.withRequestID {
				<-after
			}
			forward(sc, ends, result, opts, opened)
		}(&results[i], previousOpened, opened)
		previousOpened = opened
	}
	wg.Wait()
	sc.Close()
	json.NewEncoder(os.Stdout).Encode(map[string]interface{}{"connections": results})
}

func usage(message string) {
	fmt.Fprintln(os.Stderr, "crigateportforward:", message)
	flag.Usage()
	os.Exit(2)
}
