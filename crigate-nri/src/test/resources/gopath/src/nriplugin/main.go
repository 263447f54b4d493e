// nriplugin is a third-party NRI plugin written in Go (containerd's Go ttrpc, the NRI API generated
// for Go from crigate's proto by Debian's protoc-gen-gogottrpc, package nriapi): it connects to an
// NRI runtime's socket, registers, and at CreateContainer gives the containers of the pods that
// name it (annotation crigate.test/nri-plugin) an env var and half a CPU. It prints every
// UpdatePodSandbox it is sent.
//
//	nriplugin SOCKET NAME IDX   prints REGISTERED once registered, then "UPDATE-POD-SANDBOX POD shares=N"
//	                            per pod resource update; runs until the connection closes
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/containerd/ttrpc"
	api "nriapi"
	"nrimux"
)

const selector = "crigate.test/nri-plugin"

type plugin struct {
	// methods of events the plugin does not subscribe to are never called
	api.PluginService
	name     string
	shutdown chan struct{}
}

func (p *plugin) Configure(ctx context.Context, req *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	fmt.Fprintf(os.Stderr, "configured by %s %s\n", req.RuntimeName, req.RuntimeVersion)
	return &api.ConfigureResponse{Events: 1<<(int32(api.Event_CREATE_CONTAINER)-1) | 1<<(int32(api.Event_UPDATE_POD_SANDBOX)-1)}, nil
}

func (p *plugin) UpdatePodSandbox(ctx context.Context, req *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	shares := uint64(0)
	if r := req.LinuxResources; r != nil && r.Cpu != nil && r.Cpu.Shares != nil {
		shares = r.Cpu.Shares.Value
	}
	id := ""
	if req.Pod != nil {
		id = req.Pod.Id
	}
	fmt.Printf("UPDATE-POD-SANDBOX %s shares=%d\n", id, shares)
	return &api.UpdatePodSandboxResponse{}, nil
}

func (p *plugin) Synchronize(ctx context.Context, req *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	return &api.SynchronizeResponse{More: req.More}, nil
}

func (p *plugin) Shutdown(ctx context.Context, req *api.Empty) (*api.Empty, error) {
	close(p.shutdown)
	return &api.Empty{}, nil
}

func (p *plugin) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	if req.Pod == nil || req.Pod.Annotations[selector] != p.name {
		return &api.CreateContainerResponse{}, nil
	}
	return &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{
		Env: []*api.KeyValue{{Key: "GO_NRI_INJECTED", Value: "by-" + req.Pod.Name}},
		Linux: &api.LinuxContainerAdjustment{Resources: &api.LinuxResources{Cpu: &api.LinuxCPU{
			Quota:  &api.OptionalInt64{Value: 50000},
			Period: &api.OptionalUInt64{Value: 100000},
		}}},
	}}, nil
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: nriplugin SOCKET NAME IDX")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
}

func run(socket, name, idx string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	t := nrimux.New(conn, nrimux.PluginServiceConn, nrimux.RuntimeServiceConn)
	defer t.Close()
	p := &plugin{name: name, shutdown: make(chan struct{})}
	server, err := ttrpc.NewServer()
	if err != nil {
		return err
	}
	api.RegisterPluginService(server, p)
	served := make(chan error, 1)
	// serve before registering: the runtime configures the plugin as soon as it has registered
	go func() {
		served <- server.Serve(context.Background(), nrimux.ListenOn(t.Conn(nrimux.PluginServiceConn)))
	}()
	defer server.Close()
	runtime := api.NewRuntimeClient(ttrpc.NewClient(t.Conn(nrimux.RuntimeServiceConn)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := runtime.RegisterPlugin(ctx, &api.RegisterPluginRequest{PluginName: name, PluginIdx: idx, NRIVersion: "v0.12.2"}); err != nil {
		return fmt.Errorf("register: %w", err)
	}
	fmt.Println("REGISTERED")
	select {
	case <-p.shutdown:
		return nil
	case err := <-served:
		if err == nil || errors.Is(err, ttrpc.ErrServerClosed) {
			return nil
		}
		return err
	}
}
