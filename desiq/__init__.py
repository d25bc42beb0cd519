"""desiq: Social-IQ / DeSIQ video MCQA, perturbations, debiased splits and bias probes."""
