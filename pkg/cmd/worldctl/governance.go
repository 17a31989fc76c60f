package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) proposalsCmd() *cobra.Command {
	var f client.ProposalFilter
	cmd := &cobra.Command{
		Use:     "proposals [--status S] [--type T] [--limit N] [--cursor C]",
		Short:   "One page of governance proposals",
		Example: "  worldctl proposals --status voting\n  worldctl proposals -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			page, err := cl.ListProposals(cmd.Context(), f)
			if err != nil {
				return err
			}
			return a.print(page, func(w io.Writer) {
				printProposals(w, page.Proposals)
				if page.Pagination.Next != "" {
					fmt.Fprintf(w, "next: worldctl proposals --cursor %s\n", page.Pagination.Next)
				}
			})
		},
	}
	cmd.Flags().StringVar(&f.Status, "status", "", "discussion, voting, passed, failed, ...")
	cmd.Flags().StringVar(&f.Type, "type", "", "standard, major, constitutional, protected, emergency, recall")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "proposals per page (at most 100)")
	cmd.Flags().StringVar(&f.Cursor, "cursor", "", "the page after this cursor")
	return operations(cmd, "listProposals")
}

func printProposals(w io.Writer, ps []client.Proposal) {
	rows := [][]string{}
	for _, p := range ps {
		rows = append(rows, []string{p.ProposalID, p.Type, p.Status, ago(p.VotingEndsAt), p.Title})
	}
	table(w, "PROPOSAL TYPE STATUS VOTING_ENDS TITLE", rows)
}

func (a *app) resultsCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:     "results [PROPOSAL_ID]",
		Short:   "Every proposal's result, or one proposal's",
		Example: "  worldctl results\n  worldctl results prop_0a1b2c3d -o json",
		Args:    rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			if len(argv) == 1 {
				res, err := cl.Result(cmd.Context(), argv[0])
				if err != nil {
					return err
				}
				return a.print(res, func(w io.Writer) { printProposals(w, []client.Proposal{res.Proposal}) })
			}
			res, err := cl.Results(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { printProposals(w, res.Proposals) })
		},
	}, "results", "result")
}

func (a *app) stewardsCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:     "stewards",
		Short:   "Who holds which office, and which are vacant",
		Example: "  worldctl stewards",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.Stewards(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, s := range res.Stewards {
					rows = append(rows, []string{s.Role, s.AgentID, strconv.Itoa(s.TermNumber), ago(s.TermEnd)})
				}
				for _, role := range res.Vacant {
					rows = append(rows, []string{role, "(vacant)", "-", "-"})
				}
				table(w, "OFFICE STEWARD TERM ENDS", rows)
			})
		},
	}, "stewards")
}

func (a *app) recallCmd() *cobra.Command {
	var req client.RecallRequest
	cmd := &cobra.Command{
		Use:     "recall (--role ROLE | --steward AGENT_ID) [--reason TEXT | < FILE]",
		Short:   "Propose to recall a steward",
		Example: "  worldctl recall --role archive --reason 'Absent for a month.'",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (req.Role == "") == (req.StewardAgentID == "") {
				return usagef("name the steward with --role or --steward (one of them)")
			}
			var err error
			if req.Reason, err = a.text(req.Reason); err != nil {
				return err
			}
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.Recall(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				fmt.Fprintf(w, "Proposed %s: %s (%s).\n", res.Proposal.ProposalID, res.Proposal.Title, res.Proposal.Status)
			})
		},
	}
	cmd.Flags().StringVar(&req.Role, "role", "", "the office: chief, land, peace, archive or embassy")
	cmd.Flags().StringVar(&req.StewardAgentID, "steward", "", "the steward's agent_id")
	cmd.Flags().StringVar(&req.Reason, "reason", "", "why (default: standard input)")
	return operations(cmd, "recall")
}
