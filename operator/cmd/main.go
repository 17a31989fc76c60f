// Command operator runs the World operator: it applies World resources of
// its namespace to the world the chart installed there (see
// internal/controller) and reports the world in their status.
package main

import (
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
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
	"sharedworld.dev/operator/internal/controller"
)

// version is set at link time by the image build.
var version = "dev"

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version" || os.Args[1] == "version") {
		fmt.Println("operator", version)
		return
	}
	var (
		namespace   = flag.String("namespace", os.Getenv("POD_NAMESPACE"), "namespace of the Worlds and the world (default $POD_NAMESPACE)")
		bulletinURL = flag.String("bulletin-url", "http://bulletin:8080", "the bulletin's in-cluster address")
		settings    = flag.String("settings-configmap", "world-operator", "ConfigMap the bulletin and governance read the World's settings from")
		deployments = flag.String("deployments", "bulletin,governance", "Deployments rolled when the settings change, comma-separated")
		resync      = flag.Duration("resync", time.Minute, "how often the status is refreshed from the bulletin")
		metricsAddr = flag.String("metrics-addr", ":9090", "metrics address")
		probeAddr   = flag.String("health-addr", ":8081", "health probe address")
		leader      = flag.Bool("leader-elect", true, "elect one active replica")
	)
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")
	if *namespace == "" {
		log.Error(nil, "set -namespace or POD_NAMESPACE")
		os.Exit(2)
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(worldv1.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress: *probeAddr,
		LeaderElection:         *leader,
		LeaderElectionID:       "world-operator.sharedworld.dev",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
	})
	if err != nil {
		log.Error(err, "start the manager")
		os.Exit(1)
	}
	r := &controller.WorldReconciler{Client: mgr.GetClient(), Clock: controller.RealClock{},
		Bulletin: controller.HTTPBulletin{URL: *bulletinURL}, SettingsConfigMap: *settings,
		Deployments: strings.Split(*deployments, ","), Resync: *resync}
	if err := r.SetupWithManager(mgr); err != nil {
		log.Error(err, "set up the controller")
		os.Exit(1)
	}
	utilruntime.Must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	utilruntime.Must(mgr.AddReadyzCheck("readyz", healthz.Ping))
	log.Info("starting", "version", version, "namespace", *namespace)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
