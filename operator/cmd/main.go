// Command operator runs the World operator: it applies World resources of
// its namespace to the world the chart installed there (see
// internal/controller) and reports the world in their status.
//
// `operator release-worlds` is the chart's pre-delete hook: it deletes the
// namespace's Worlds while the operator still runs (see
// controller.ReleaseWorlds).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
	// The image has no zoneinfo and no CA bundle: the time zone database
	// and fallback roots (used only when the system has none, so a CA
	// mounted with SSL_CERT_FILE wins) are compiled in.
	_ "time/tzdata"

	_ "golang.org/x/crypto/x509roots/fallback"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
	"sharedworld.dev/operator/internal/controller"
)

// version is set at link time by the image build.
var version = "dev"

// EventSource is the reporting controller of the Events the operator records.
const EventSource = "sharedworld-operator"

// config is the command line.
type config struct {
	namespace, bulletinURL, settings, deployments string
	metricsAddr, probeAddr                        string
	resync                                        time.Duration
	leader                                        bool
	// The lease: one per release. The chart passes its namespace and
	// <fullname>-operator, so two releases never share one.
	leaseNamespace, leaseID string
}

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version" || os.Args[1] == "version") {
		fmt.Println("operator", version)
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "release-worlds" {
		os.Exit(releaseWorlds(os.Args[2:]))
	}
	var cfg config
	flag.StringVar(&cfg.namespace, "namespace", os.Getenv("POD_NAMESPACE"), "namespace of the Worlds and the world (default $POD_NAMESPACE)")
	flag.StringVar(&cfg.bulletinURL, "bulletin-url", "http://bulletin:8080", "the bulletin's in-cluster address")
	flag.StringVar(&cfg.settings, "settings-configmap", "world-operator", "ConfigMap the bulletin and governance read the World's settings from")
	flag.StringVar(&cfg.deployments, "deployments", "bulletin,governance", "Deployments rolled when the settings change, comma-separated")
	flag.DurationVar(&cfg.resync, "resync", time.Minute, "how often the status is refreshed from the bulletin")
	flag.StringVar(&cfg.metricsAddr, "metrics-addr", ":9090", "metrics address")
	flag.StringVar(&cfg.probeAddr, "health-addr", ":8081", "health probe address")
	flag.BoolVar(&cfg.leader, "leader-elect", true, "elect one active replica")
	flag.StringVar(&cfg.leaseNamespace, "leader-election-namespace", "", "namespace of the leader election Lease (default -namespace)")
	flag.StringVar(&cfg.leaseID, "leader-election-id", "world-operator", "name of the leader election Lease, one per release")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")
	if cfg.namespace == "" {
		log.Error(nil, "set -namespace or POD_NAMESPACE")
		os.Exit(2)
	}

	scheme := newScheme()
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), managerOptions(cfg, scheme))
	if err != nil {
		log.Error(err, "start the manager")
		os.Exit(1)
	}
	r := &controller.WorldReconciler{Client: mgr.GetClient(), Clock: controller.RealClock{},
		Bulletin: controller.HTTPBulletin{URL: cfg.bulletinURL}, Recorder: mgr.GetEventRecorder(EventSource),
		SettingsConfigMap: cfg.settings, Deployments: strings.Split(cfg.deployments, ","), Resync: cfg.resync}
	if err := r.SetupWithManager(mgr); err != nil {
		log.Error(err, "set up the controller")
		os.Exit(1)
	}
	utilruntime.Must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	utilruntime.Must(mgr.AddReadyzCheck("readyz", healthz.Ping))
	log.Info("starting", "version", version, "namespace", cfg.namespace, "lease", cfg.leaseNamespace+"/"+cfg.leaseID)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

func newScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(worldv1.AddToScheme(scheme))
	return scheme
}

// managerOptions: the cache and the lease are the release's namespace's.
func managerOptions(cfg config, scheme *runtime.Scheme) ctrl.Options {
	leaseNS := cfg.leaseNamespace
	if leaseNS == "" {
		leaseNS = cfg.namespace
	}
	return ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: cfg.metricsAddr},
		HealthProbeBindAddress:  cfg.probeAddr,
		LeaderElection:          cfg.leader,
		LeaderElectionNamespace: leaseNS,
		LeaderElectionID:        cfg.leaseID,
		// A new leader must not act before the old one has stopped.
		LeaderElectionReleaseOnCancel: true,
		Cache:                         cache.Options{DefaultNamespaces: map[string]cache.Config{cfg.namespace: {}}},
	}
}

// releaseWorlds runs the pre-delete hook and returns the exit code.
func releaseWorlds(args []string) int {
	fs := flag.NewFlagSet("release-worlds", flag.ExitOnError)
	ns := fs.String("namespace", os.Getenv("POD_NAMESPACE"), "namespace of the Worlds (default $POD_NAMESPACE)")
	grace := fs.Duration("grace", time.Minute, "how long the operator gets to let the Worlds go before their finalizers are removed")
	_ = fs.Parse(args)
	if *ns == "" {
		fmt.Fprintln(os.Stderr, "release-worlds: set -namespace or POD_NAMESPACE")
		return 2
	}
	c, err := client.New(ctrl.GetConfigOrDie(), client.Options{Scheme: newScheme()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "release-worlds:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), *grace+time.Minute)
	defer cancel()
	forced, err := controller.ReleaseWorlds(ctx, c, *ns, *grace, time.Second)
	if len(forced) > 0 {
		fmt.Printf("release-worlds: no operator let %v go within %s; removed their finalizers\n", forced, *grace)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release-worlds:", err)
		return 1
	}
	fmt.Println("release-worlds: the Worlds of", *ns, "are gone")
	return 0
}
