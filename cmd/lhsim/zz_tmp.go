package main

func runGoalGen(args []string) error { return nil }
