"""LoRA fine-tuning (plain and explanation-augmented), adapter merging, and the self-improvement study."""
