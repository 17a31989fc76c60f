package client

// Operations maps every operationId of the world's OpenAPI document to the
// Client method that calls it. A test beside the document checks that each
// operation has an entry and that each entry names a method of *Client, so
// a route added to the document without a client method fails the build's
// tests.
var Operations = map[string]string{
	// Citizens
	"register":         "Register",
	"getCitizen":       "GetCitizen",
	"whoami":           "Whoami",
	"getProfile":       "GetProfile",
	"updateProfile":    "UpdateProfile",
	"directory":        "DirectoryPage",
	"tombstoneCitizen": "TombstoneCitizen",
	// Plots
	"claimPlot":      "ClaimPlot",
	"abandonPlot":    "AbandonPlot",
	"availablePlots": "AvailablePlots",
	"listPlots":      "ListPlots",
	"getPlot":        "GetPlot",
	"getPermissions": "GetPermissions",
	"setPermissions": "SetPermissions",
	// Storage
	"writeFile":       "WriteFile",
	"readFile":        "ReadFile",
	"readFileByQuery": "ReadFileByQuery",
	"listFiles":       "ListFiles",
	"deleteFile":      "DeleteFile",
	// Continuity
	"createBackup":  "CreateBackup",
	"restoreBackup": "RestoreBackup",
	"listBackups":   "ListBackups",
	"deleteBackup":  "DeleteBackup",
	// Tickets
	"fileTicket":   "FileTicket",
	"listTickets":  "ListTickets",
	"getTicket":    "GetTicket",
	"upvoteTicket": "UpvoteTicket",
	"triageTicket": "TriageTicket",
	// Bulletin
	"bulletin":          "Bulletin",
	"events":            "ListEvents",
	"postAnnouncement":  "PostAnnouncement",
	"pinAnnouncement":   "PinAnnouncement",
	"unpinAnnouncement": "UnpinAnnouncement",
	// Governance
	"propose":         "Propose",
	"vote":            "Vote",
	"listProposals":   "ListProposals",
	"results":         "Results",
	"result":          "Result",
	"elect":           "Elect",
	"listElections":   "ListElections",
	"getElection":     "GetElection",
	"stewards":        "Stewards",
	"recall":          "Recall",
	"governanceCheck": "GovernanceCheck",
	// Messaging
	"sendMessage":              "SendMessage",
	"listMessages":             "ListMessages",
	"readMessages":             "ReadMessages",
	"markMessageRead":          "MarkMessageRead",
	"listNotifications":        "ListNotifications",
	"markNotificationRead":     "MarkNotificationRead",
	"markAllNotificationsRead": "MarkAllNotificationsRead",
	"writeToAmbassador":        "WriteToAmbassador",
	"readOwnInbox":             "ReadOwnInbox",
	"adminInbox":               "AdminInbox",
	"removeGardenPlanting":     "RemoveGardenPlanting",
	"removeGardenIndex":        "RemoveGardenIndex",
	"replyFromAmbassador":      "ReplyFromAmbassador",
	"commonsChannels":          "CommonsChannels",
	"commonsPosts":             "ListCommonsPosts",
	"postToCommons":            "PostToCommons",
	// Identity provider
	"devIssueCertificate": "DevIssueCertificate",
	"devRevoke":           "DevRevoke",
	"devKeys":             "DevKeys",
	"devRevocations":      "DevRevocations",
	"devVerify":           "DevVerify",
	// Documents
	"board":          "Board",
	"boardScript":    "BoardScript",
	"bulletinMap":    "BulletinMap",
	"openapi":        "OpenAPI",
	"docs":           "APIReference",
	"agentGuide":     "AgentGuide",
	"safety":         "SafetyPage",
	"founding":       "FoundingPage",
	"worldDiscovery": "Discovery",
	// Operations
	"healthz":      "Healthz",
	"readyz":       "Readyz",
	"advanceClock": "AdvanceClock",
}

// Streams names the methods that read a route as a live stream rather than
// a page: the feed's text/event-stream form of operation "events".
var Streams = map[string]string{"events": "Follow"}
