// Package v1alpha1 is the World API: one World resource describes the
// world a release of the chart runs (its name, founding, phase override,
// next milestone, note, logic flag, election trigger and ticket limits)
// and reports what the world looks like.
// +kubebuilder:object:generate=true
// +groupName=sharedworld.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API's group and version.
	GroupVersion = schema.GroupVersion{Group: "sharedworld.dev", Version: "v1alpha1"}
	// SchemeBuilder registers the API's types.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion} //nolint:staticcheck // the api package is the CRD types' own; kubebuilder's layout keeps the builder here
	// AddToScheme adds the API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
