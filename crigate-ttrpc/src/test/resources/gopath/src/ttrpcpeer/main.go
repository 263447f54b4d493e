// ttrpcpeer is the reference side of crigate's ttrpc interop tests: containerd's own Go ttrpc
// (Debian's golang-github-containerd-ttrpc-dev), built in GOPATH mode.
//
//	ttrpcpeer server SOCKET               serve crigate.test.Echo until stdin closes
//	ttrpcpeer client SOCKET               run the interop checks against a server, exit 1 on failure
//	ttrpcpeer bench SOCKET N              N sequential Echo calls, print "p50_us p99_us"
//
// Messages are google.protobuf.BytesValue, which protobuf-java also has.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/containerd/ttrpc"
	"github.com/gogo/protobuf/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const service = "crigate.test.Echo"

// concurrent is how many calls the Gather check keeps in flight on one connection.
const concurrent = 16

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: ttrpcpeer server|client|bench SOCKET [N]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "server":
		err = serve(os.Args[2])
	case "client":
		err = check(os.Args[2])
	case "bench":
		n, _ := strconv.Atoi(os.Args[3])
		err = bench(os.Args[2], n)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
}

func bytesIn(unmarshal func(interface{}) error) ([]byte, error) {
	var in types.BytesValue
	if err := unmarshal(&in); err != nil {
		return nil, err
	}
	return in.Value, nil
}

func serve(socket string) error {
	os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	s, err := ttrpc.NewServer()
	if err != nil {
		return err
	}
	var arrived sync.WaitGroup
	arrived.Add(concurrent)
	s.Register(service, map[string]ttrpc.Method{
		"Echo": func(ctx context.Context, unmarshal func(interface{}) error) (interface{}, error) {
			v, err := bytesIn(unmarshal)
			return &types.BytesValue{Value: v}, err
		},
		"Fail": func(ctx context.Context, unmarshal func(interface{}) error) (interface{}, error) {
			v, _ := bytesIn(unmarshal)
			return nil, status.Errorf(codes.NotFound, "no such thing: %s", v)
		},
		"Meta": func(ctx context.Context, unmarshal func(interface{}) error) (interface{}, error) {
			v, _ := bytesIn(unmarshal)
			md, _ := ttrpc.GetMetadata(ctx)
			vals, _ := md.Get(string(v))
			out := ""
			for i, s := range vals {
				if i > 0 {
					out += ","
				}
				out += s
			}
			return &types.BytesValue{Value: []byte(out)}, nil
		},
		"Slow": func(ctx context.Context, unmarshal func(interface{}) error) (interface{}, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return &types.BytesValue{}, nil
			}
		},
		"Gather": func(ctx context.Context, unmarshal func(interface{}) error) (interface{}, error) {
			arrived.Done()
			arrived.Wait() // returns only when all concurrent calls are inside a handler together
			return &types.BytesValue{Value: []byte("true")}, nil
		},
	})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		s.Close()
		os.Exit(0)
	}()
	fmt.Println("READY")
	return s.Serve(context.Background(), l)
}

func dial(socket string) (*ttrpc.Client, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, err
	}
	return ttrpc.NewClient(conn), nil
}

func call(ctx context.Context, c *ttrpc.Client, method string, in string) (string, error) {
	var out types.BytesValue
	err := c.Call(ctx, service, method, &types.BytesValue{Value: []byte(in)}, &out)
	return string(out.Value), err
}

// check runs each interop case against a server and reports the first that fails.
func check(socket string) error {
	c, err := dial(socket)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()

	if got, err := call(ctx, c, "Echo", "hello from go"); err != nil || got != "hello from go" {
		return fmt.Errorf("unary: got %q, %v", got, err)
	}
	if _, err := call(ctx, c, "Fail", "pod-1"); status.Code(err) != codes.NotFound || status.Convert(err).Message() != "no such thing: pod-1" {
		return fmt.Errorf("error: want NotFound 'no such thing: pod-1', got %v", err)
	}
	mctx := ttrpc.WithMetadata(ctx, ttrpc.MD{"k": {"a", "b"}})
	if got, err := call(mctx, c, "Meta", "k"); err != nil || got != "a,b" {
		return fmt.Errorf("metadata: got %q, %v", got, err)
	}
	dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = call(dctx, c, "Slow", "")
	cancel()
	if status.Code(err) != codes.DeadlineExceeded && err != context.DeadlineExceeded {
		return fmt.Errorf("deadline: want DeadlineExceeded, got %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, concurrent)
	for i := 0; i < concurrent; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if got, err := call(cctx, c, "Gather", ""); err != nil || got != "true" {
				errs <- fmt.Errorf("concurrent: got %q, %v", got, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	if got, err := call(ctx, c, "Echo", "after"); err != nil || got != "after" {
		return fmt.Errorf("connection unusable after the checks: %q, %v", got, err)
	}
	fmt.Println("OK")
	return nil
}

func bench(socket string, n int) error {
	c, err := dial(socket)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	payload := string(make([]byte, 64))
	for i := 0; i < n/10; i++ { // warm-up
		if _, err := call(ctx, c, "Echo", payload); err != nil {
			return err
		}
	}
	samples := make([]time.Duration, n)
	for i := range samples {
		start := time.Now()
		if _, err := call(ctx, c, "Echo", payload); err != nil {
			return err
		}
		samples[i] = time.Since(start)
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	fmt.Printf("%.1f %.1f\n", us(samples[(n*50+99)/100-1]), us(samples[(n*99+99)/100-1]))
	return nil
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
