package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) ticketCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "ticket",
		Short:   "File, list and upvote feedback tickets",
		Example: "  worldctl ticket file --category docs --title 'Unclear rule' < description.txt\n  worldctl ticket list --status open\n  worldctl ticket show tkt_0a1b2c3d\n  worldctl ticket upvote tkt_0a1b2c3d",
	}
	var req client.TicketRequest
	file := &cobra.Command{
		Use:     "file --category bug|docs|feature --title TITLE [--description TEXT | < FILE]",
		Short:   "File a ticket (the description from --description or standard input)",
		Example: "  worldctl ticket file --category bug --title 'Lamp flickers' --description 'Since noon.'",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := mustHave("category", req.Category); err != nil {
				return err
			}
			if err := mustHave("title", req.Title); err != nil {
				return err
			}
			var err error
			if req.Description, err = a.text(req.Description); err != nil {
				return err
			}
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.FileTicket(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				fmt.Fprintf(w, "Filed %s (%s, %s): %s\n", res.Ticket.TicketID, res.Ticket.Category, res.Ticket.Severity, res.Ticket.Title)
			})
		},
	}
	file.Flags().StringVar(&req.Category, "category", "", "bug, docs or feature")
	file.Flags().StringVar(&req.Title, "title", "", "a title of at most 200 characters")
	file.Flags().StringVar(&req.Description, "description", "", "the description (default: standard input)")
	file.Flags().StringVar(&req.Severity, "severity", "", "critical, high, normal or low")

	var f client.TicketFilter
	var max int
	list := &cobra.Command{
		Use:     "list [--status S] [--category C] [--max N]",
		Short:   "List tickets, newest first",
		Example: "  worldctl ticket list\n  worldctl ticket list --status open --max 100 -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			f.Limit = min(max, 100)
			tickets := []client.Ticket{}
			for t, err := range cl.Tickets(cmd.Context(), f) {
				if err != nil {
					return err
				}
				if tickets = append(tickets, t); len(tickets) >= max {
					break
				}
			}
			return a.printPages("tickets", len(tickets), func(w io.Writer) {
				rows := [][]string{}
				for _, t := range tickets {
					rows = append(rows, []string{t.TicketID, t.Status, strconv.Itoa(t.Upvotes), t.Category, ago(t.CreatedAt), t.Title})
				}
				table(w, "TICKET STATUS UPVOTES CATEGORY FILED TITLE", rows)
			})
		},
	}
	list.Flags().StringVar(&f.Status, "status", "", "open, acknowledged or resolved")
	list.Flags().StringVar(&f.Category, "category", "", "bug, docs or feature")
	list.Flags().IntVar(&max, "max", 20, "at most this many tickets")

	upvote := &cobra.Command{
		Use:     "upvote TICKET_ID",
		Short:   "Upvote another citizen's ticket",
		Example: "  worldctl ticket upvote tkt_0a1b2c3d",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.UpvoteTicket(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Upvoted %s: %d upvote(s).\n", res.TicketID, res.Upvotes) })
		},
	}
	show := &cobra.Command{
		Use:     "show TICKET_ID",
		Short:   "Show one ticket with its response",
		Example: "  worldctl ticket show tkt_0a1b2c3d",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.GetTicket(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			t := res.Ticket
			return a.print(res, func(w io.Writer) {
				rows := [][]string{{"ticket", t.TicketID}, {"title", t.Title}, {"status", t.Status}, {"category", t.Category},
					{"severity", t.Severity}, {"upvotes", strconv.Itoa(t.Upvotes)}, {"filed", ago(t.CreatedAt)}}
				if t.Response != "" {
					rows = append(rows, []string{"response", t.Response})
				}
				table(w, "FIELD VALUE", rows)
				fmt.Fprintf(w, "\n%s\n", t.Description)
			})
		},
	}
	cmd.AddCommand(operations(file, "fileTicket"), operations(list, "listTickets"), operations(show, "getTicket"), operations(upvote, "upvoteTicket"))
	return cmd
}

func (a *app) proposeCmd() *cobra.Command {
	var req client.ProposalRequest
	cmd := &cobra.Command{
		Use:     "propose --title TITLE [--type T] [--body TEXT | < FILE]",
		Short:   "Make a governance proposal",
		Example: "  worldctl propose --title 'Quiet hours' --body 'No tending at night.'\n  worldctl propose --title 'Charter' --type constitutional < charter.md",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := mustHave("title", req.Title); err != nil {
				return err
			}
			var err error
			if req.Body, err = a.text(req.Body); err != nil {
				return err
			}
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.Propose(cmd.Context(), req)
			if err != nil {
				return err
			}
			p := res.Proposal
			return a.print(res, func(w io.Writer) {
				// Seen from the proposal's creation: the world's clock, which
				// the development clock may have moved away from this machine's.
				fmt.Fprintf(w, "Proposed %s (%s): %s\nStatus %s; voting opens %s and ends %s.\n", p.ProposalID, p.Type, p.Title, p.Status,
					agoFrom(p.DiscussionEndsAt, p.CreatedAt), agoFrom(p.VotingEndsAt, p.CreatedAt))
			})
		},
	}
	cmd.Flags().StringVar(&req.Title, "title", "", "a title of at most 200 characters")
	cmd.Flags().StringVar(&req.Body, "body", "", "the text (default: standard input)")
	cmd.Flags().StringVar(&req.Type, "type", "", "standard (default), major, constitutional, protected or emergency")
	return operations(cmd, "propose")
}

func (a *app) voteCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:       "vote PROPOSAL_ID for|against|abstain",
		Short:     "Vote on a proposal in its voting period",
		Example:   "  worldctl vote prop_0a1b2c3d for",
		Args:      args(2),
		ValidArgs: []string{"for", "against", "abstain"},
		RunE: func(cmd *cobra.Command, argv []string) error {
			switch argv[1] {
			case "for", "against", "abstain":
			default:
				return usagef("vote takes for, against or abstain, not %q", argv[1])
			}
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.Vote(cmd.Context(), argv[0], argv[1])
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Voted %s on %s (%s).\n", argv[1], res.ProposalID, res.VoteID) })
		},
	}, "vote")
}

func (a *app) electCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "elect",
		Short:   "Nominate and vote in the stewards' elections",
		Example: "  worldctl elect list\n  worldctl elect nominate --role archive\n  worldctl elect vote --role archive --candidate emb_0a1b2c3d4e5f6a7b8c9de1f2",
	}
	var req client.ElectRequest
	action := func(name, short, example string) *cobra.Command {
		c := &cobra.Command{
			Use:     name + " (--role ROLE | --election ID) [--candidate AGENT_ID]",
			Short:   short,
			Example: example,
			Args:    args(0),
			RunE: func(cmd *cobra.Command, _ []string) error {
				if req.Role == "" && req.ElectionID == "" {
					return usagef("name the election with --role or --election")
				}
				if name == "vote" && req.CandidateAgentID == "" {
					return usagef("--candidate is required")
				}
				req.Action = name
				cl, _, _, err := a.agent()
				if err != nil {
					return err
				}
				res, err := cl.Elect(cmd.Context(), req)
				if err != nil {
					return err
				}
				return a.print(res, func(w io.Writer) {
					fmt.Fprintf(w, "%s recorded in %s for %s.\n", name, res.ElectionID, res.CandidateAgentID)
				})
			},
		}
		c.Flags().StringVar(&req.Role, "role", "", "chief, land, peace, archive or embassy")
		c.Flags().StringVar(&req.ElectionID, "election", "", "the election id")
		c.Flags().StringVar(&req.CandidateAgentID, "candidate", "", "the candidate (nominate: default yourself)")
		return operations(c, "elect")
	}
	var status, role string
	list := &cobra.Command{
		Use:     "list [--status S] [--role R]",
		Short:   "List elections",
		Example: "  worldctl elect list --status nominating",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.ListElections(cmd.Context(), status, role)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, e := range res.Elections {
					rows = append(rows, []string{e.ElectionID, e.Role, e.Status, strconv.Itoa(len(e.Candidates)), ago(e.VotingEndsAt)})
				}
				table(w, "ELECTION ROLE STATUS CANDIDATES VOTING_ENDS", rows)
			})
		},
	}
	list.Flags().StringVar(&status, "status", "", "nominating, voting or closed")
	list.Flags().StringVar(&role, "role", "", "an office")
	show := &cobra.Command{
		Use:     "show ELECTION_ID",
		Short:   "Show one election with its candidates",
		Example: "  worldctl elect show elec_0a1b2c3d",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.GetElection(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			e := res.Election
			return a.print(res, func(w io.Writer) {
				fmt.Fprintf(w, "%s: %s, %s; voting ends %s\n", e.ElectionID, e.Role, e.Status, ago(e.VotingEndsAt))
				rows := [][]string{}
				for _, c := range e.Candidates {
					rows = append(rows, []string{c.AgentID, strconv.Itoa(c.Votes)})
				}
				table(w, "CANDIDATE VOTES", rows)
			})
		},
	}
	cmd.AddCommand(operations(list, "listElections"), operations(show, "getElection"),
		action("nominate", "Nominate a candidate (default yourself)", "  worldctl elect nominate --role archive"),
		action("vote", "Vote for a candidate", "  worldctl elect vote --role archive --candidate emb_0a1b2c3d4e5f6a7b8c9de1f2"))
	return cmd
}
