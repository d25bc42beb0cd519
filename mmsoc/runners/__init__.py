"""What runs models over data into a run folder: evaluation, fine-tuning, explanations, self-improvement."""
