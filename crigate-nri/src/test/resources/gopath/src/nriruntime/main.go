// nriruntime plays the runtime's side of NRI (what containerd does) against crigate's Java NRI
// plugin, with containerd's Go ttrpc and Go code generated from crigate's NRI proto by the
// protoc-gen-gogottrpc that golang-github-containerd-ttrpc-dev ships (package nriapi, generated
// by the test). containerd/nri itself is not packaged, so the socket multiplexer is written here.
//
//	nriruntime SOCKET   listen, accept one plugin, drive Register, Configure, a two-part
//	                    Synchronize and CreateContainer, print what came back, exit
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/containerd/ttrpc"
	api "nriapi"
)

const (
	pluginServiceConn  = 1
	runtimeServiceConn = 2
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: nriruntime SOCKET")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
}

// trunk carries the logical connections: each chunk is conn id and length (uint32, big-endian) and data.
type trunk struct {
	conn  net.Conn
	wmu   sync.Mutex
	conns map[uint32]*logical
}

type logical struct {
	t  *trunk
	id uint32
	r  *io.PipeReader
	w  *io.PipeWriter
}

func newTrunk(conn net.Conn, ids ...uint32) *trunk {
	t := &trunk{conn: conn, conns: map[uint32]*logical{}}
	for _, id := range ids {
		r, w := io.Pipe()
		t.conns[id] = &logical{t: t, id: id, r: r, w: w}
	}
	go t.readLoop()
	return t
}

func (t *trunk) readLoop() {
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

func (c *logical) Read(b []byte) (int, error) { return c.r.Read(b) }

func (c *logical) Write(b []byte) (int, error) {
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

func (c *logical) Close() error                       { return c.t.conn.Close() }
func (c *logical) LocalAddr() net.Addr                { return c.t.conn.LocalAddr() }
func (c *logical) RemoteAddr() net.Addr               { return c.t.conn.RemoteAddr() }
func (c *logical) SetDeadline(t time.Time) error      { return nil }
func (c *logical) SetReadDeadline(t time.Time) error  { return nil }
func (c *logical) SetWriteDeadline(t time.Time) error { return nil }

// once hands the ttrpc server one connection, then blocks until closed.
type once struct {
	conns chan net.Conn
	done  chan struct{}
	addr  net.Addr
}

func (l *once) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, errors.New("closed")
	}
}
func (l *once) Close() error   { close(l.done); return nil }
func (l *once) Addr() net.Addr { return l.addr }

type runtimeService struct{ registered chan *api.RegisterPluginRequest }

func (r *runtimeService) RegisterPlugin(ctx context.Context, req *api.RegisterPluginRequest) (*api.Empty, error) {
	r.registered <- req
	return &api.Empty{}, nil
}

func (r *runtimeService) UpdateContainers(ctx context.Context, req *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	return &api.UpdateContainersResponse{}, nil
}

func run(socket string) error {
	l, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	defer l.Close()
	fmt.Println("LISTENING")
	conn, err := l.Accept()
	if err != nil {
		return err
	}
	t := newTrunk(conn, pluginServiceConn, runtimeServiceConn)
	rs := &runtimeService{registered: make(chan *api.RegisterPluginRequest, 1)}
	server, err := ttrpc.NewServer()
	if err != nil {
		return err
	}
	api.RegisterRuntimeService(server, rs)
	listener := &once{conns: make(chan net.Conn, 1), done: make(chan struct{}), addr: conn.LocalAddr()}
	listener.conns <- t.conns[runtimeServiceConn]
	go server.Serve(context.Background(), listener)
	defer server.Close()
	client := ttrpc.NewClient(t.conns[pluginServiceConn])
	defer client.Close()
	plugin := api.NewPluginClient(client)

	var reg *api.RegisterPluginRequest
	select {
	case reg = <-rs.registered:
	case <-time.After(5 * time.Second):
		return errors.New("plugin did not register within 5s")
	}
	fmt.Printf("registered %s-%s nri=%s\n", reg.PluginIdx, reg.PluginName, reg.NRIVersion)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cfg, err := plugin.Configure(ctx, &api.ConfigureRequest{RuntimeName: "go-nri-runtime", RuntimeVersion: "test",
		RegistrationTimeout: 5000, RequestTimeout: 2000})
	if err != nil {
		return fmt.Errorf("configure: %w", err)
	}
	fmt.Printf("events %d\n", cfg.Events)

	part, err := plugin.Synchronize(ctx, &api.SynchronizeRequest{More: true,
		Pods: []*api.PodSandbox{{Id: "pod-0", Name: "existing", Namespace: "default"}}})
	if err != nil {
		return fmt.Errorf("synchronize part 1: %w", err)
	}
	fmt.Printf("sync-part more=%v updates=%d\n", part.More, len(part.Update))
	last, err := plugin.Synchronize(ctx, &api.SynchronizeRequest{
		Containers: []*api.Container{{Id: "ctr-0", PodSandboxId: "pod-0", Name: "old"}}})
	if err != nil {
		return fmt.Errorf("synchronize part 2: %w", err)
	}
	fmt.Printf("sync-done updates=%d\n", len(last.Update))

	created, err := plugin.CreateContainer(ctx, &api.CreateContainerRequest{
		Pod:       &api.PodSandbox{Id: "pod-1", Name: "web", Namespace: "default"},
		Container: &api.Container{Id: "ctr-1", PodSandboxId: "pod-1", Name: "app"}})
	if err != nil {
		return fmt.Errorf("create container: %w", err)
	}
	// the generator turns getters off: nil checks by hand
	if a := created.Adjust; a != nil {
		for _, kv := range a.Env {
			fmt.Printf("env %s=%s\n", kv.Key, kv.Value)
		}
		if l := a.Linux; l != nil && l.Resources != nil && l.Resources.Cpu != nil && l.Resources.Cpu.Quota != nil {
			fmt.Printf("cpu.quota %d\n", l.Resources.Cpu.Quota.Value)
		}
	}
	return nil
}
