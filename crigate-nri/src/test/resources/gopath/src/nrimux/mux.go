// Package nrimux splits one NRI socket into its logical connections (1: the plugin's service,
// 2: the runtime's service), as NRI does: each chunk on the trunk is the connection id and the
// data length (uint32, big-endian each) followed by the data. containerd/nri, where the real
// multiplexer lives, is not packaged by Debian, so the test peers use this one.
package nrimux

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

const (
	// PluginServiceConn carries the Plugin service: the runtime calls, the plugin serves.
	PluginServiceConn = 1
	// RuntimeServiceConn carries the Runtime service: the plugin calls, the runtime serves.
	RuntimeServiceConn = 2
)

// Trunk carries the logical connections of one socket.
type Trunk struct {
	conn  net.Conn
	wmu   sync.Mutex
	conns map[uint32]*Logical
}

// Logical is one connection inside the trunk; closing it closes the trunk.
type Logical struct {
	t  *Trunk
	id uint32
	r  *io.PipeReader
	w  *io.PipeWriter
}

// New starts reading conn and demultiplexes it onto the logical connections ids.
func New(conn net.Conn, ids ...uint32) *Trunk {
	t := &Trunk{conn: conn, conns: map[uint32]*Logical{}}
	for _, id := range ids {
		r, w := io.Pipe()
		t.conns[id] = &Logical{t: t, id: id, r: r, w: w}
	}
	go t.readLoop()
	return t
}

// Conn is the logical connection id.
func (t *Trunk) Conn(id uint32) *Logical { return t.conns[id] }

// Close closes the socket and with it every logical connection.
func (t *Trunk) Close() error { return t.conn.Close() }

func (t *Trunk) readLoop() {
	var hdr [8]byte
	var err error
	for {
		if _, err = io.ReadFull(t.conn, hdr[:]); err != nil {
			break
		}
		data := make([]byte, binary.BigEndian.Uint32(hdr[4:]))
		if _, err = io.ReadFull(t.conn, data); err != nil {
			break
		}
		c, ok := t.conns[binary.BigEndian.Uint32(hdr[:4])]
		if !ok {
			err = fmt.Errorf("data for unknown connection %d", binary.BigEndian.Uint32(hdr[:4]))
			break
		}
		c.w.Write(data)
	}
	for _, c := range t.conns {
		c.w.CloseWithError(err)
	}
}

func (c *Logical) Read(b []byte) (int, error) { return c.r.Read(b) }

func (c *Logical) Write(b []byte) (int, error) {
	c.t.wmu.Lock()
	defer c.t.wmu.Unlock()
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], c.id)
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(b)))
	if _, err := c.t.conn.Write(append(hdr[:], b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (c *Logical) Close() error                       { return c.t.conn.Close() }
func (c *Logical) LocalAddr() net.Addr                { return c.t.conn.LocalAddr() }
func (c *Logical) RemoteAddr() net.Addr               { return c.t.conn.RemoteAddr() }
func (c *Logical) SetDeadline(t time.Time) error      { return nil }
func (c *Logical) SetReadDeadline(t time.Time) error  { return nil }
func (c *Logical) SetWriteDeadline(t time.Time) error { return nil }

// Listener hands a ttrpc server one logical connection, then blocks until closed.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	addr  net.Addr
}

// ListenOn makes a listener whose only connection is c.
func ListenOn(c *Logical) *Listener {
	l := &Listener{conns: make(chan net.Conn, 1), done: make(chan struct{}), addr: c.LocalAddr()}
	l.conns <- c
	return l
}

func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, errors.New("closed")
	}
}

func (l *Listener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *Listener) Addr() net.Addr { return l.addr }
