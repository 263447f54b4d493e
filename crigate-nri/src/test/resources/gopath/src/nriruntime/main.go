// nriruntime plays the runtime's side of NRI (what containerd does) against crigate's Java NRI
// plugin, with containerd's Go ttrpc and Go code generated from crigate's NRI proto by the
// protoc-gen-gogottrpc that golang-github-containerd-ttrpc-dev ships (package nriapi, generated
// by the test).
//
//	nriruntime [-expect-update] SOCKET
//	                           listen, accept one plugin, drive it, print what came back, exit; with
//	                           -expect-update, first wait for one unsolicited UpdateContainers, print
//	                           its updates and evictions, and answer the updates of containers other
//	                           than ctr-0 and ctr-1 as failed
//	nriruntime -launch PLUGIN [-config-dir DIR]
//	                           start PLUGIN as containerd starts a pre-installed plugin: one end of
//	                           a socketpair as its fd 3 and only NRI_PLUGIN_NAME, NRI_PLUGIN_IDX and
//	                           NRI_PLUGIN_SOCKET=3 in its environment; drive it over the other end,
//	                           then close the connection and report how the plugin exited. With
//	                           -config-dir, Configure carries the plugin's drop-in as containerd
//	                           reads it: DIR/IDX-NAME.conf, else DIR/NAME.conf. A Configure that
//	                           fails is printed ("configure-failed ...") and the plugin dropped, as
//	                           containerd does
//
// Driving is Register, Configure, a two-part Synchronize, CreateContainer and UpdatePodSandbox.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/ttrpc"
	api "nriapi"
	"nrimux"
)

func main() {
	launched := flag.String("launch", "", "start this plugin file as a pre-installed plugin")
	configDir := flag.String("config-dir", "", "where a launched plugin's drop-in configuration is")
	expectUpdate := flag.Bool("expect-update", false, "wait for one unsolicited UpdateContainers")
	flag.Parse()
	var err error
	switch {
	case *launched != "" && flag.NArg() == 0:
		err = launch(*launched, *configDir)
	case *launched == "" && flag.NArg() == 1:
		err = listen(flag.Arg(0), *expectUpdate)
	default:
		fmt.Fprintln(os.Stderr, "usage: nriruntime [-expect-update] SOCKET | nriruntime -launch PLUGIN")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
}

type runtimeService struct {
	registered chan *api.RegisterPluginRequest
	updated    chan *api.UpdateContainersRequest
}

func (r *runtimeService) RegisterPlugin(ctx context.Context, req *api.RegisterPluginRequest) (*api.Empty, error) {
	r.registered <- req
	return &api.Empty{}, nil
}

func (r *runtimeService) UpdateContainers(ctx context.Context, req *api.UpdateContainersRequest) (*api.UpdateContainersResponse, error) {
	var failed []*api.ContainerUpdate
	for _, u := range req.Update {
		if u.ContainerId != "ctr-0" && u.ContainerId != "ctr-1" {
			failed = append(failed, u)
		}
	}
	r.updated <- req
	return &api.UpdateContainersResponse{Failed: failed}, nil
}

func listen(socket string, expectUpdate bool) error {
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
	return drive(nrimux.New(conn, nrimux.PluginServiceConn, nrimux.RuntimeServiceConn), expectUpdate, "")
}

// awaitUpdate prints the first unsolicited UpdateContainers.
func awaitUpdate(rs *runtimeService) error {
	select {
	case req := <-rs.updated:
		for _, u := range req.Update {
			shares := uint64(0)
			if l := u.Linux; l != nil && l.Resources != nil && l.Resources.Cpu != nil && l.Resources.Cpu.Shares != nil {
				shares = l.Resources.Cpu.Shares.Value
			}
			fmt.Printf("update %s shares=%d\n", u.ContainerId, shares)
		}
		for _, e := range req.Evict {
			fmt.Printf("evict %s reason=%s\n", e.ContainerId, e.Reason)
		}
		return nil
	case <-time.After(60 * time.Second):
		return errors.New("no UpdateContainers within 60s")
	}
}

// dropIn reads a launched plugin's configuration the way containerd's NRI does: IDX-NAME.conf
// first, then NAME.conf; none is an empty configuration.
func dropIn(dir, idx, name string) (string, error) {
	if dir == "" {
		return "", nil
	}
	for _, file := range []string{idx + "-" + name + ".conf", name + ".conf"} {
		buf, err := os.ReadFile(filepath.Join(dir, file))
		if err == nil {
			return string(buf), nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
	}
	return "", nil
}

// configureFailed is a plugin that refused its configuration: the runtime drops it.
type configureFailed struct{ err error }

func (c configureFailed) Error() string { return "configure: " + c.err.Error() }

// launch names the plugin as containerd does: the file is IDX-NAME.
func launch(path, configDir string) error {
	idx, name, ok := strings.Cut(filepath.Base(path), "-")
	if !ok {
		return fmt.Errorf("plugin file %s is not named IDX-NAME", path)
	}
	config, err := dropIn(configDir, idx, name)
	if err != nil {
		return err
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	local := os.NewFile(uintptr(fds[0]), "runtime end")
	peer := os.NewFile(uintptr(fds[1]), "plugin end")
	conn, err := net.FileConn(local)
	local.Close()
	if err != nil {
		return err
	}
	cmd := exec.Command(path)
	cmd.ExtraFiles = []*os.File{peer} // the first extra file is the child's fd 3
	cmd.Env = []string{"NRI_PLUGIN_NAME=" + name, "NRI_PLUGIN_IDX=" + idx, "NRI_PLUGIN_SOCKET=3"}
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	peer.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t := nrimux.New(conn, nrimux.PluginServiceConn, nrimux.RuntimeServiceConn)
	if err := drive(t, false, config); err != nil {
		var refused configureFailed
		if !errors.As(err, &refused) {
			cmd.Process.Kill()
			return err
		}
		fmt.Printf("configure-failed %v\n", refused.err)
	}
	// a runtime that goes away closes the connection: a launched plugin must then exit by itself
	t.Close()
	select {
	case err := <-exited:
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			return err
		}
		fmt.Printf("plugin exited %d\n", code)
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return errors.New("plugin still running 60s after its connection closed")
	}
	return nil
}

func drive(t *nrimux.Trunk, expectUpdate bool, config string) error {
	rs := &runtimeService{registered: make(chan *api.RegisterPluginRequest, 1), updated: make(chan *api.UpdateContainersRequest, 1)}
	server, err := ttrpc.NewServer()
	if err != nil {
		return err
	}
	api.RegisterRuntimeService(server, rs)
	go server.Serve(context.Background(), nrimux.ListenOn(t.Conn(nrimux.RuntimeServiceConn)))
	defer server.Close()
	client := ttrpc.NewClient(t.Conn(nrimux.PluginServiceConn))
	plugin := api.NewPluginClient(client)

	var reg *api.RegisterPluginRequest
	// a JVM started cold on a loaded machine: containerd's 5 s are measured from the plugin's start
	// too, so the launched test says how long it took rather than failing on a busy CI box
	start := time.Now()
	select {
	case reg = <-rs.registered:
	case <-time.After(60 * time.Second):
		return errors.New("plugin did not register within 60s")
	}
	fmt.Fprintf(os.Stderr, "registered after %v\n", time.Since(start))
	fmt.Printf("registered %s-%s nri=%s\n", reg.PluginIdx, reg.PluginName, reg.NRIVersion)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg, err := plugin.Configure(ctx, &api.ConfigureRequest{Config: config, RuntimeName: "go-nri-runtime", RuntimeVersion: "test",
		RegistrationTimeout: 5000, RequestTimeout: 2000})
	if err != nil {
		return configureFailed{err}
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
		Pod: &api.PodSandbox{Id: "pod-1", Name: "web", Namespace: "default",
			Annotations: map[string]string{"scheduling.koordinator.sh/device-allocated": `{"gpu":[{"minor":1}]}`}},
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
	// v0.12.2's pod resource update: crigate's engine hears it as UpdatePodSandboxResources
	if _, err := plugin.UpdatePodSandbox(ctx, &api.UpdatePodSandboxRequest{
		Pod:            &api.PodSandbox{Id: "pod-1", Name: "web", Namespace: "default"},
		LinuxResources: &api.LinuxResources{Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 2048}}}}); err != nil {
		return fmt.Errorf("update pod sandbox: %w", err)
	}
	fmt.Println("update-pod-sandbox answered")
	if expectUpdate {
		return awaitUpdate(rs)
	}
	return nil
}
