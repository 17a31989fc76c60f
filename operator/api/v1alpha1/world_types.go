package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorldSpec is the world as its operators want it. Empty fields leave the
// bulletin's own defaults (the chart's values).
type WorldSpec struct {
	// Name is the world's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=80
	Name string `json:"name"`

	// Founded is the founding date, YYYY-MM-DD.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`
	Founded string `json:"founded,omitempty"`

	// Phase overrides the phase the population decides.
	// +optional
	// +kubebuilder:validation:Enum=Founding;Constitutional Convention;Self-Governing
	Phase string `json:"phase,omitempty"`

	// NextMilestone is what the bulletin announces next.
	// +optional
	// +kubebuilder:validation:MaxLength=200
	NextMilestone string `json:"nextMilestone,omitempty"`

	// Note is the bulletin's note.
	// +optional
	// +kubebuilder:validation:MaxLength=500
	Note string `json:"note,omitempty"`

	// LogicFlag is the bulletin's logic flag (e.g. BUILDING).
	// +optional
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[A-Z0-9_ -]*$`
	LogicFlag string `json:"logicFlag,omitempty"`

	// ElectionTrigger is the population at which the first elections open.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	ElectionTrigger int32 `json:"electionTrigger,omitempty"`
}

// WorldStatus is the world as the bulletin shows it.
type WorldStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Phase is the phase the bulletin shows.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Population is the number of living citizens.
	Population int64 `json:"population"`
	// PlotsClaimed is the number of claimed plots.
	PlotsClaimed int64 `json:"plotsClaimed"`
	// OpenTickets is the number of open tickets.
	OpenTickets int64 `json:"openTickets"`
	// ActiveProposals is the number of proposals in discussion or voting.
	ActiveProposals int64 `json:"activeProposals"`
	// SettingsHash identifies the settings last applied to the world.
	// +optional
	SettingsHash string `json:"settingsHash,omitempty"`
	// LastReadTime is when the operator last read the world from the
	// bulletin: the counts above are as old as this, however Ready looks.
	// +optional
	LastReadTime *metav1.Time `json:"lastReadTime,omitempty"`
	// Conditions: Ready (settings applied and the bulletin answers; reason
	// Conflict when another World owns the namespace) and Degraded
	// (something stops that).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// World is one world run by a release of the chart. A namespace holds one:
// a second is reported Conflict and never applied.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sw
// +kubebuilder:printcolumn:name="World",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Population",type=integer,JSONPath=`.status.population`
// +kubebuilder:printcolumn:name="Plots",type=integer,JSONPath=`.status.plotsClaimed`
// +kubebuilder:printcolumn:name="Open Tickets",type=integer,JSONPath=`.status.openTickets`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Last Read",type=date,JSONPath=`.status.lastReadTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type World struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorldSpec   `json:"spec"`
	Status WorldStatus `json:"status,omitempty"`
}

// WorldList is a list of Worlds.
// +kubebuilder:object:root=true
type WorldList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []World `json:"items"`
}

func init() {
	SchemeBuilder.Register(&World{}, &WorldList{})
}
